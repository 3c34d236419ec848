/**
 * Lazy loading of `@lydell/node-pty`: one-shot users never load a PTY library, and a machine
 * where it cannot load gets one clear error instead of a crash at import time.
 */
import { DshError } from '@dsh/core';

/** The part of node-pty's terminal we use. */
export interface PtyProcess {
  readonly pid: number;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): { dispose(): void };
  write(data: string): void;
  resize(cols: number, rows: number): void;
  kill(signal?: string): void;
  /** Stops reading the PTY (the program blocks once the terminal's buffer is full). */
  pause(): void;
  /** Reads the PTY again. */
  resume(): void;
}

/** The part of node-pty's module we use. */
export interface PtyModule {
  spawn(
    file: string,
    args: string[],
    options: { name: string; cols: number; rows: number; cwd: string; env: Record<string, string>; encoding: 'utf8' },
  ): PtyProcess;
}

let loading: Promise<PtyModule> | undefined;

/**
 * Loads node-pty once.
 * @throws DshError `PTY_UNAVAILABLE` (rejection) with the loader's reason and what to install.
 */
export function loadPty(): Promise<PtyModule> {
  loading ??= import('@lydell/node-pty').then(
    (mod) => (mod as { default?: PtyModule }).default ?? (mod as unknown as PtyModule),
    (error: unknown) => {
      loading = undefined; // a later call may succeed once the package is installed
      throw new DshError(
        'PTY_UNAVAILABLE',
        `node-pty could not be loaded (${error instanceof Error ? error.message : String(error)}); install @lydell/node-pty for this platform to use terminals.`,
        { cause: error },
      );
    },
  );
  return loading;
}
