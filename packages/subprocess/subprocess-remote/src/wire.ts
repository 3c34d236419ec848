/**
 * What crosses the channel: spawn specs in a JSON-safe form (environment tombstones kept, stdin
 * bytes in base64, no AbortSignal — an abort travels as a terminate request), stream ids, and
 * errors. Both sides use these; neither trusts the other's input without checking its shape.
 */
import { DshError } from '@dsh/core';
import type { OutputDisposition, SpawnSpec, StdinDisposition, TerminalSpawnSpec } from '@dsh/subprocess';

/** The channel protocol's version; both sides refuse a peer with another. */
export const PROTOCOL_VERSION = 1;

/** Streams of a handle: stdin (to the server), stdout, stderr, and a terminal's output (from it). */
export const STREAM = { stdin: 0, stdout: 1, stderr: 2, terminal: 3 } as const;
export type StreamName = 'stdout' | 'stderr';

/** The id of stream `s` of handle `h` in data frames. */
export function streamId(h: number, s: number): number {
  return h * 4 + s;
}

/** The handle and stream of a data frame's id. */
export function streamOf(id: number): { h: number; s: number } {
  return { h: Math.floor(id / 4), s: id % 4 };
}

/** An output disposition on the wire: `inherit` travels as a pipe the client copies to its own descriptor. */
export type WireOutput = OutputDisposition;

/** A spawn spec on the wire. */
export interface WireSpec {
  argv: string[];
  cwd: string;
  /** Entries in order; null is a tombstone (undefined does not survive JSON). */
  env: [string, string | null][];
  stdin: { kind: 'ignore' } | { kind: 'pipe' } | { kind: 'bytes'; base64: string };
  stdout: WireOutput;
  stderr: WireOutput;
  graceMs: number;
}

/** A terminal spec on the wire. */
export interface WireTerminalSpec {
  argv: string[];
  cwd: string;
  env: [string, string | null][];
  cols: number;
  rows: number;
  graceMs: number;
}

function wireEnv(env: SpawnSpec['env']): [string, string | null][] {
  return Object.entries(env).map(([k, v]) => [k, v === undefined ? null : v]);
}

function localEnv(env: [string, string | null][]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of env) out[k] = v === null ? undefined : v;
  return out;
}

function wireStdin(stdin: StdinDisposition): WireSpec['stdin'] {
  if (stdin.kind !== 'bytes') return { kind: stdin.kind };
  const data = typeof stdin.data === 'string' ? Buffer.from(stdin.data, 'utf8') : Buffer.from(stdin.data);
  return { kind: 'bytes', base64: data.toString('base64') };
}

/** A validated spec as it is sent. */
export function toWire(spec: SpawnSpec): WireSpec {
  return {
    argv: [...spec.argv],
    cwd: spec.cwd,
    env: wireEnv(spec.env),
    stdin: wireStdin(spec.stdin),
    stdout: spec.stdout.kind === 'inherit' ? { kind: 'pipe' } : spec.stdout,
    stderr: spec.stderr.kind === 'inherit' ? { kind: 'pipe' } : spec.stderr,
    graceMs: spec.graceMs,
  };
}

/** A received spec, to be validated by the runtime that spawns it. */
export function fromWire(wire: WireSpec): SpawnSpec {
  const stdin: StdinDisposition =
    wire.stdin?.kind === 'bytes'
      ? { kind: 'bytes', data: Buffer.from(String(wire.stdin.base64), 'base64') }
      : wire.stdin;
  return {
    argv: wire.argv,
    cwd: wire.cwd,
    env: localEnv(Array.isArray(wire.env) ? wire.env : []),
    stdin,
    stdout: wire.stdout,
    stderr: wire.stderr,
    graceMs: wire.graceMs,
  };
}

export function terminalToWire(spec: TerminalSpawnSpec): WireTerminalSpec {
  return {
    argv: [...spec.argv],
    cwd: spec.cwd,
    env: wireEnv(spec.env),
    cols: spec.cols,
    rows: spec.rows,
    graceMs: spec.graceMs,
  };
}

export function terminalFromWire(wire: WireTerminalSpec): TerminalSpawnSpec {
  return {
    argv: wire.argv,
    cwd: wire.cwd,
    env: localEnv(Array.isArray(wire.env) ? wire.env : []),
    cols: wire.cols,
    rows: wire.rows,
    graceMs: wire.graceMs,
  };
}

/** An error as it crosses the channel. */
export interface WireError {
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

export function toWireError(error: unknown): WireError {
  if (error instanceof DshError) return { code: error.code, message: error.message, data: { ...error.data } };
  return { code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
}

export function fromWireError(error: WireError | undefined): DshError {
  return new DshError(error?.code ?? 'INTERNAL_ERROR', error?.message ?? 'the runtime server failed', {
    data: error?.data ?? {},
  });
}
