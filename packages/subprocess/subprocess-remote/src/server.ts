/**
 * The runtime server: serves a `SubprocessRuntime` (normally a `LocalSubprocessRuntime` where
 * the server runs) to one client over a channel. Requests carry ids and get one response each;
 * a request can be cancelled; events carry the handle they concern. When the channel's input
 * ends, every tree the server started is ended and joined (nothing is orphaned where it runs).
 */
import type { Readable, Writable } from 'node:stream';
import { DshError } from '@dsh/core';
import { type SubprocessRuntime, validateTerminalSpawnSpec } from '@dsh/subprocess';
import type { Message } from './frames.js';
import { Peer } from './peer.js';
import { ServedProcess } from './served-process.js';
import { ServedTerminal } from './served-terminal.js';
import {
  PROTOCOL_VERSION,
  STREAM,
  streamOf,
  terminalFromWire,
  toWireError,
  type WireSpec,
  type WireTerminalSpec,
} from './wire.js';

/** What the server says about itself in `hello`. */
export interface ServerInfo {
  protocol: number;
  pid: number;
  platform: string;
  arch: string;
  node: string;
  /** The program that runs the server (a channel can start another server with it). */
  execPath: string;
  /** The tree-tracking mode of the served runtime (`cgroup` or `session`), when it says. */
  containment: string | null;
  [key: string]: unknown;
}

/** Serves `runtime` over `input`/`output` until the input ends; then disposes the runtime. */
export class RuntimeServer {
  private readonly peer: Peer;
  private readonly processes = new Map<number, ServedProcess>();
  private readonly terminals = new Map<number, ServedTerminal>();
  private readonly cancels = new Map<number, AbortController>();
  private ending: Promise<void> | undefined;
  /** Resolves when the channel ended and every tree is gone. */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(
    private readonly runtime: SubprocessRuntime,
    input: Readable,
    output: Writable,
    private readonly info: Record<string, unknown> = {},
    /** Entries set for every command and terminal after the request's own (a world's proxy variables). */
    private readonly forcedEnv: Readonly<Record<string, string>> = {},
  ) {
    this.closed = new Promise((r) => {
      this.resolveClosed = r;
    });
    this.peer = new Peer(input, output, {
      message: (m) => this.onMessage(m),
      data: (id, bytes) => {
        const { h, s } = streamOf(id);
        if (s === STREAM.stdin) this.processes.get(h)?.stdin(bytes);
      },
      closed: () => void this.shutdown(),
    });
  }

  /** Ends every tree and stops serving. Idempotent. */
  shutdown(): Promise<void> {
    this.ending ??= (async () => {
      await this.runtime.dispose().catch(() => undefined);
      this.peer.end();
      this.resolveClosed();
    })();
    return this.ending;
  }

  private onMessage(m: Message): void {
    const id = typeof m.id === 'number' ? m.id : null;
    const h = typeof m.h === 'number' ? m.h : -1;
    switch (m.op) {
      case 'spawn': {
        const served = new ServedProcess(this.peer, h, this.runtime, this.forced(m.spec as WireSpec));
        this.processes.set(h, served);
        void served.finished.then(() => this.processes.delete(h));
        return;
      }
      case 'stdin-end':
        this.processes.get(h)?.stdinEnd();
        return;
      case 'pause':
      case 'resume':
        this.processes.get(h)?.flow(m.stream === 'stderr' ? 'stderr' : 'stdout', m.op === 'pause');
        return;
      case 'write':
        this.terminals.get(h)?.write(String(m.text));
        return;
      case 'resize':
        this.terminals.get(h)?.resize(Number(m.cols), Number(m.rows));
        return;
      case 'tflow':
        this.terminals.get(h)?.flow(m.held === true);
        return;
      case 'cancel':
        this.cancels.get(Number(m.target))?.abort();
        return;
    }
    if (id === null) return;
    void this.answer(id, m, h);
  }

  private async answer(id: number, m: Message, h: number): Promise<void> {
    const cancel = new AbortController();
    this.cancels.set(id, cancel);
    try {
      const value = await this.request(m, h, cancel.signal);
      this.peer.send({ t: 'res', id, ok: true, value: value ?? null });
    } catch (error) {
      this.peer.send({ t: 'res', id, ok: false, error: toWireError(error) });
    } finally {
      this.cancels.delete(id);
    }
  }

  private async request(m: Message, h: number, signal: AbortSignal): Promise<unknown> {
    switch (m.op) {
      case 'hello': {
        if (m.protocol !== PROTOCOL_VERSION) {
          throw new DshError(
            'CHANNEL_PROTOCOL',
            `The runtime server speaks protocol ${PROTOCOL_VERSION}, the client ${String(m.protocol)}.`,
          );
        }
        const containment = (this.runtime as { containment?: unknown }).containment;
        const info: ServerInfo = {
          ...this.info,
          protocol: PROTOCOL_VERSION,
          pid: process.pid,
          platform: process.platform,
          arch: process.arch,
          node: process.version,
          execPath: process.execPath,
          containment: typeof containment === 'string' ? containment : null,
        };
        return info;
      }
      case 'resolve':
        return this.runtime.resolveExecutable(
          String(m.program),
          Object.fromEntries((m.env as [string, string | null][]).map(([k, v]) => [k, v ?? undefined])),
        );
      case 'terminate':
        return this.processes.get(h)?.terminate();
      case 'end-tree':
        return (await this.processes.get(h)?.endTree()) ?? 0;
      case 'wait':
        return this.waitFor(h, signal);
      case 'pty': {
        const spec = terminalFromWire(this.forced(m.spec as WireTerminalSpec));
        validateTerminalSpawnSpec(spec);
        const term = await this.runtime.spawnTerminal(spec);
        const served = new ServedTerminal(this.peer, h, term);
        this.terminals.set(h, served);
        void term.done.finally(() => this.terminals.delete(h)).catch(() => undefined);
        return { pid: term.pid };
      }
      case 'facts':
        return this.terminals.get(h)?.term.inspectForeground() ?? null;
      case 'signal-fg':
        return this.terminals.get(h)?.term.signalForeground(String(m.signal)) ?? false;
      case 'tterminate':
        return this.terminals.get(h)?.term.terminate();
      case 'dispose':
        await this.runtime.dispose();
        return null;
      default:
        throw new DshError('CHANNEL_PROTOCOL', `Unknown request "${String(m.op)}".`);
    }
  }

  /** `spec` with the forced entries last (they win over the request's). */
  private forced<T extends { env: [string, string | null][] }>(spec: T): T {
    const extra = Object.entries(this.forcedEnv);
    if (extra.length === 0 || !spec || !Array.isArray(spec.env)) return spec;
    return { ...spec, env: [...spec.env, ...extra] };
  }

  private async waitFor(h: number, signal: AbortSignal): Promise<void> {
    const served = this.processes.get(h);
    if (!served) return;
    await Promise.race([
      served.wait(),
      new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    ]);
  }
}
