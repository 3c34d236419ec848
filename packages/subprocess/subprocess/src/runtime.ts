/**
 * The ctx.subprocess service contract. Providers (e.g. `@dsh/subprocess-local`) extend it.
 */
import type { SpawnSpec, SubprocessHandle, SubprocessTerminalHandle, TerminalSpawnSpec } from './types.js';

declare module '@dsh/core' {
  interface ServiceMap {
    /** The process substrate: executable lookup, managed spawn, the terminal primitive. */
    subprocess: SubprocessRuntime;
  }
}

/** The process substrate every execution layer stands on. */
export abstract class SubprocessRuntime {
  /**
   * Resolves a program name to a canonical absolute path. Bare names are searched on the
   * PATH of the scrubbed parent environment merged with `env`.
   * @throws DshError `RELATIVE_EXECUTABLE` (e.g. `./x`), `EXECUTABLE_NOT_FOUND`, `NOT_EXECUTABLE`, `INVALID_SPEC` (rejection).
   */
  abstract resolveExecutable(program: string, env: SpawnSpec['env']): Promise<string>;

  /**
   * Starts a managed process tree and returns its handle at once. Start failures resolve
   * `done` with `error`; they never throw.
   * @throws DshError `INVALID_SPEC` / `RELATIVE_EXECUTABLE` synchronously for a malformed spec; `DISPOSED` after dispose.
   */
  abstract spawn(spec: SpawnSpec): SubprocessHandle;

  /**
   * Starts a process on a new pseudo-terminal.
   * @throws DshError `INVALID_SPEC`, `NOT_IMPLEMENTED` where the provider has no terminals.
   */
  abstract spawnTerminal(spec: TerminalSpawnSpec): Promise<SubprocessTerminalHandle>;

  /** Terminates every live managed process tree and waits for each to be gone. Idempotent. */
  abstract dispose(): Promise<void>;

  /**
   * Whether what it starts sees this machine's files at the same paths: true here and in a
   * sandbox world on this machine, false in a world on another machine (its files are read
   * through it).
   */
  get sharesFilesystem(): boolean {
    return true;
  }
}
