/**
 * Executable lookup on an explicit PATH: loud typed failures, canonical results, no guesses.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { DshError } from '@dsh/core';
import { assertProgramShape } from '@dsh/subprocess';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
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
    let isFile: boolean;
    try {
      isFile = statSync(program).isFile();
    } catch {
      throw new DshError('EXECUTABLE_NOT_FOUND', `program ${program} does not exist; check the path.`, {
        data: { program },
      });
    }
    if (!isFile || !isExecutableFile(program)) {
      throw new DshError('NOT_EXECUTABLE', `${program} is not an executable file; check its mode (chmod +x).`, {
        data: { program },
      });
    }
    return realpathSync(program);
  }
  const path = env.PATH ?? '';
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return realpathSync(candidate);
  }
  throw new DshError(
    'EXECUTABLE_NOT_FOUND',
    `program "${program}" was not found on PATH; install it, pass an absolute path, or set PATH in env.`,
    { data: { program, path } },
  );
}
