/**
 * The spawn spec of a small helper command a layer runs in its world (make a directory, write or
 * read a file, probe a path): cwd `/`, no extra environment, both streams collected in memory.
 */
import type { SpawnSpec } from './types.js';

/** Options of {@link smallSpec}. */
export interface SmallSpecOptions {
  /** Bytes of stdout kept. */
  maxBytes: number;
  /** Bytes of stderr kept. @default maxBytes */
  stderrMaxBytes?: number;
  /** `pipe` to write the command's input. @default 'ignore' */
  stdin?: 'ignore' | 'pipe';
  /** Ends the command when aborted. @default none */
  signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace. @default 1000 */
  graceMs?: number;
}

/** A spec for `argv` as a small helper command. */
export function smallSpec(argv: readonly string[], options: SmallSpecOptions): SpawnSpec {
  return {
    argv,
    cwd: '/',
    env: {},
    stdin: { kind: options.stdin ?? 'ignore' },
    stdout: { kind: 'collect', maxBytes: options.maxBytes },
    stderr: { kind: 'collect', maxBytes: options.stderrMaxBytes ?? options.maxBytes },
    graceMs: options.graceMs ?? 1_000,
    ...(options.signal ? { signal: options.signal } : {}),
  };
}
