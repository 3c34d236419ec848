/**
 * How a sub-agent's fs requests are served (`fs/read_text_file`, `fs/write_text_file`): on this
 * machine's disk when the world shares it, else through the world's own runtime (`cat`,
 * `realpath`, a shell write), so an agent on another machine reads and writes that machine's
 * files. Writes keep the owner's sandbox rules either way: inside the writable roots (unless
 * unconfined), judged on the real path, never through a symlink at the target.
 */
import { closeSync, constants, mkdirSync, openSync, realpathSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { readRegularText } from '@dsh/core';
import type { ResolvedSandbox } from '@dsh/sandbox';
import { type SubprocessRuntime, smallSpec } from '@dsh/subprocess';

/** The most of a file a sub-agent may read at once. */
export const ACP_MAX_READ_BYTES = 16 * 1024 * 1024;
/** What a helper command in the world may say on stderr (a short reason). */
const HELPER_STDERR_BYTES = 4096;

/** Reads and writes files where the agent runs. Errors are ACP request errors. */
export interface AgentFiles {
  read(path: string): Promise<string>;
  write(path: string, content: string, sandbox: ResolvedSandbox | undefined): Promise<void>;
}

function within(roots: readonly string[], path: string): boolean {
  return roots.some((r) => {
    const rel = relative(r, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/** `path` with every existing part's symlinks resolved (the missing tail kept as written). */
function realOf(path: string): string {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(at), ...missing.reverse());
    } catch {
      if (at === dirname(at)) return resolve(path);
      missing.push(basename(at));
      at = dirname(at);
    }
  }
}

function absolute(path: string): void {
  if (!isAbsolute(path)) throw RequestError.invalidParams({ path }, 'the path must be absolute');
}

/** Refuses `real` (the real path of `path`) unless the sandbox lets writes reach it (`roots`: the real writable roots). */
function allowWrite(path: string, real: string, sandbox: ResolvedSandbox | undefined, roots: () => string[]): void {
  if (!sandbox || sandbox.mode === 'danger-full-access') return;
  if (sandbox.mode === 'read-only' || !within(roots(), real)) {
    throw RequestError.invalidParams({ path }, `writing ${path} is outside what sandbox mode ${sandbox.mode} allows`);
  }
}

/** This machine's files. */
const local: AgentFiles = {
  async read(path) {
    try {
      return readRegularText(path, ACP_MAX_READ_BYTES);
    } catch (error) {
      throw RequestError.resourceNotFound(
        `${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  },
  async write(path, content, sandbox) {
    absolute(path);
    const real = realOf(path);
    allowWrite(path, real, sandbox, () => (sandbox?.writableRoots ?? []).map(realOf));
    // O_NOFOLLOW: a symlink swapped in since the check is refused.
    mkdirSync(dirname(real), { recursive: true });
    const fd = openSync(real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
  },
};

/** Runs `argv` in the world (stdin: `input`, when given); its stdout, or why it failed. */
async function run(
  runtime: SubprocessRuntime,
  argv: string[],
  input?: string,
): Promise<{ ok: boolean; out: string; why: string; tooLarge: boolean }> {
  const spec = smallSpec(argv, { maxBytes: ACP_MAX_READ_BYTES, stderrMaxBytes: HELPER_STDERR_BYTES });
  const h = runtime.spawn(input === undefined ? spec : { ...spec, stdin: { kind: 'bytes', data: input } });
  const outcome = await h.done;
  return {
    ok: outcome.exitCode === 0 && !outcome.error,
    out: h.stdoutReader?.read(0).text ?? '',
    why: outcome.error?.message || h.stderrReader?.read(0).text.trim() || `exit code ${outcome.exitCode}`,
    tooLarge: (h.stdoutReader?.totalBytes ?? 0) > ACP_MAX_READ_BYTES,
  };
}

/** Prints the file `$1`; refuses what is not a regular file. */
const READ = '[ -f "$1" ] || { echo "not a regular file" >&2; exit 1; }; exec cat -- "$1"';
/** Prints the real path of each argument, a missing tail kept (GNU or busybox realpath). */
const REAL = 'for p; do realpath -m -- "$p" 2>/dev/null || realpath -- "$p" || exit 1; done';
/** Writes stdin to `$1`, making its directory; refuses a symlink there (swapped in since the check). */
const WRITE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  'mkdir -p -- "${1%/*}" || exit 1; if [ -L "$1" ]; then echo "$1 is a symbolic link" >&2; exit 1; fi; exec cat > "$1"';

/** The files of the world `runtime` runs in. */
export function filesOf(runtime: SubprocessRuntime): AgentFiles {
  if ((runtime as { sharesFilesystem?: unknown }).sharesFilesystem !== false) return local;
  return {
    async read(path) {
      const r = await run(runtime, ['sh', '-c', READ, 'dsh-read', path]);
      if (r.tooLarge) throw RequestError.resourceNotFound(`${path} (larger than ${ACP_MAX_READ_BYTES} bytes)`);
      if (!r.ok) throw RequestError.resourceNotFound(`${path} (${r.why})`);
      return r.out;
    },
    async write(path, content, sandbox) {
      absolute(path);
      const roots = sandbox?.writableRoots ?? [];
      const resolved = await run(runtime, ['sh', '-c', REAL, 'dsh-realpath', path, ...roots]);
      const [real, ...realRoots] = resolved.out.split('\n');
      if (!resolved.ok || !real)
        throw RequestError.invalidParams({ path }, `${path} cannot be resolved there (${resolved.why})`);
      allowWrite(path, real, sandbox, () => realRoots.slice(0, roots.length));
      const written = await run(runtime, ['sh', '-c', WRITE, 'dsh-write', real], content);
      if (!written.ok) throw RequestError.invalidParams({ path }, `writing ${path} failed there (${written.why})`);
    },
  };
}
