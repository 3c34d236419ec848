/**
 * Executable lookup on an explicit PATH: loud typed failures, canonical results, no guesses.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { DshError } from '@dsh/core';
import { assertProgramShape } from '@dsh/subprocess';

/** Any execute bit: a file with none cannot be run by anyone, root included. */
const ANY_EXECUTE_BIT = 0o111;

function isExecutableFile(path: string): boolean {
  // stat without throwing first: most PATH entries miss, and exceptions are the slow path.
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile() || (stat.mode & ANY_EXECUTE_BIT) === 0) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false; // ENOTDIR, EACCES on a parent, or not executable by us
  }
}

/**
 * Resolves `program` to a canonical absolute path. A bare name is searched in the absolute
 * entries of `env.PATH` (relative entries are skipped: they depend on the cwd).
 * @throws DshError `RELATIVE_EXECUTABLE`, `EXECUTABLE_NOT_FOUND`, `NOT_EXECUTABLE`.
 */
export function resolveExecutableSync(program: string, env: Readonly<Record<string, string>>): string {
  assertProgramShape(program);
  if (isAbsolute(program)) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(program, { throwIfNoEntry: false });
    } catch {
      stat = undefined; // a path component is not a directory
    }
    if (!stat) {
      throw new DshError('EXECUTABLE_NOT_FOUND', `program ${program} does not exist; check the path.`, {
        data: { program },
      });
    }
    if (!stat.isFile() || !isExecutableFile(program)) {
      throw new DshError('NOT_EXECUTABLE', `${program} is not an executable file; check its mode (chmod +x).`, {
        data: { program },
      });
    }
    return realpathSync.native(program);
  }
  const path = env.PATH ?? '';
  const key = `${path}\0${program}`;
  const known = found.get(key);
  // One stat proves a found path still holds an executable file; a miss searches again.
  if (known !== undefined && isExecutableFile(known.path) && Date.now() - known.at < RESOLVE_CACHE_MS)
    return known.path;
  const resolved = search(program, path);
  if (found.size >= RESOLVE_CACHE_MAX) found.clear();
  found.set(key, { path: resolved, at: Date.now() });
  return resolved;
}

/** Bare names found on a PATH, kept briefly: every spawn of the same program would search again. */
const RESOLVE_CACHE_MAX = 256;
/** How long a found path is trusted (a program installed earlier on PATH meanwhile is seen after this). */
const RESOLVE_CACHE_MS = 2_000;
const found = new Map<string, { path: string; at: number }>();

function search(program: string, path: string): string {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return realpathSync.native(candidate);
  }
  throw new DshError(
    'EXECUTABLE_NOT_FOUND',
    `program "${program}" was not found on PATH; install it, pass an absolute path, or set PATH in env.`,
    { data: { program, path } },
  );
}
