/**
 * How the LSP host reads the workspace: from this machine's disk when the world shares it, else
 * through the world's own runtime (`cat`, `test -e`), so a language server on another machine
 * is told what that machine's files say.
 */
import { existsSync } from 'node:fs';
import { DshError, readRegularText } from '@dsh/core';
import { type SubprocessRuntime, smallSpec } from '@dsh/subprocess';

/** The largest file synced to a server. */
export const LSP_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Reads and probes files where the servers run. */
export interface FileAccess {
  /** @throws DshError `LSP_FILE_UNREADABLE` (rejection). */
  read(path: string): Promise<string>;
  /** Which of `paths` exist. */
  exists(paths: readonly string[]): Promise<boolean[]>;
}

function unreadable(path: string, why: string): DshError {
  return new DshError('LSP_FILE_UNREADABLE', `${path} cannot be read (${why}).`);
}

const local: FileAccess = {
  async read(path) {
    try {
      return readRegularText(path, LSP_MAX_FILE_BYTES);
    } catch (error) {
      throw unreadable(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  },
  async exists(paths) {
    return paths.map((p) => existsSync(p));
  },
};

/** Runs `argv` in the world; its stdout, or why it failed. */
async function run(
  runtime: SubprocessRuntime,
  argv: string[],
): Promise<{ ok: boolean; out: string; err: string; lossy: boolean }> {
  const h = runtime.spawn(smallSpec(argv, { maxBytes: LSP_MAX_FILE_BYTES, stderrMaxBytes: 4096 }));
  const outcome = await h.done;
  const out = h.stdoutReader?.read(0);
  return {
    ok: outcome.exitCode === 0 && !outcome.error,
    out: out?.text ?? '',
    err: outcome.error?.message ?? h.stderrReader?.read(0).text.trim() ?? '',
    lossy: (h.stdoutReader?.totalBytes ?? 0) > LSP_MAX_FILE_BYTES,
  };
}

/**
 * File access for the world `runtime` runs in. A `confined` world (a sandbox world on this
 * machine) is read through the world too: its /tmp, its masks and its hidden paths are not this
 * machine's files, and a path a server names (or a symlink in the workspace) must not be read
 * here with dsh's own rights.
 */
export function filesOf(runtime: SubprocessRuntime, confined = false): FileAccess {
  if (runtime.sharesFilesystem && !confined) return local;
  return {
    async read(path) {
      const r = await run(runtime, ['cat', '--', path]);
      if (!r.ok) throw unreadable(path, r.err || 'cat failed there');
      if (r.lossy) throw unreadable(path, `larger than ${LSP_MAX_FILE_BYTES} bytes`);
      return r.out;
    },
    async exists(paths) {
      if (paths.length === 0) return [];
      const r = await run(runtime, [
        'sh',
        '-c',
        'for p; do if [ -e "$p" ]; then echo 1; else echo 0; fi; done',
        'dsh-exists',
        ...paths,
      ]);
      const bits = r.out.split('\n');
      return paths.map((_, i) => bits[i] === '1');
    },
  };
}
