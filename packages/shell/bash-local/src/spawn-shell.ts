/**
 * What foreground and background runs share: the spawn spec of `bash -c`, the sandbox gate,
 * and turning a collected stream into `CapturedText`.
 */
import { DshError } from '@dsh/core';
import type { CapturedText, ShellExecSpec, StartFailure } from '@dsh/shell';
import type { OutputReader, SpawnSpec } from '@dsh/subprocess';

/** Start failures that are the infrastructure's, not the command's: `run` rejects with these. */
export const INFRASTRUCTURE_START_ERRORS = new Set(['EXECUTABLE_NOT_FOUND', 'NOT_EXECUTABLE', 'SPAWN_FAILED']);

/**
 * Refuses a confined mode: this executor has no fence yet (the sandbox package brings it), and
 * a restricted run must never silently run unconfined.
 * @throws DshError `SANDBOX_UNAVAILABLE`.
 */
export function assertRunnable(spec: ShellExecSpec): void {
  if (spec.sandbox && spec.sandbox.mode !== 'danger-full-access') {
    throw new DshError(
      'SANDBOX_UNAVAILABLE',
      `sandbox mode "${spec.sandbox.mode}" needs a sandbox, and none is mounted; mount one or use danger-full-access.`,
      { data: { mode: spec.sandbox.mode } },
    );
  }
}

/** The subprocess spec of `bash -c command`: collected streams with spill, `dshEnv` over `env`. */
export function bashSpawnSpec(spec: ShellExecSpec, bash: string, signal: AbortSignal): SpawnSpec {
  const spill = { dir: spec.spillDir, maxBytes: spec.maxSpillBytes };
  return {
    argv: [bash, '-c', spec.command],
    cwd: spec.workdir,
    env: { ...spec.env, ...spec.dshEnv },
    stdin: spec.stdin === null ? { kind: 'ignore' } : { kind: 'bytes', data: spec.stdin },
    stdout: { kind: 'collect', maxBytes: spec.stdoutMaxBytes, spill },
    stderr: { kind: 'collect', maxBytes: spec.stderrMaxBytes, spill },
    graceMs: spec.graceMs,
    signal,
  };
}

/** The whole kept text of a collected stream, with its truncation facts. */
export function capture(reader: OutputReader | null): CapturedText {
  if (!reader) return { text: '', truncated: false, totalBytes: 0, spillPath: null };
  const read = reader.read(0);
  return { text: read.text, truncated: read.lossy, totalBytes: reader.totalBytes, spillPath: read.spillPath };
}

/** Rejects for a start failure that is the infrastructure's; returns the failure otherwise. */
export function startFailure(error: { code: string; message: string } | null): StartFailure | null {
  if (!error) return null;
  if (INFRASTRUCTURE_START_ERRORS.has(error.code)) {
    throw new DshError(error.code, `bash could not be started: ${error.message}`, { data: { ...error } });
  }
  return { code: error.code, message: error.message };
}
