/**
 * Complete copies of output a model was shown only the end of, when no spill file holds it:
 * written (mode 0600) into the shell's spill directory, so a truncation note can always name
 * where the rest is.
 */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { ShellExecutor } from '@dsh/shell';

/**
 * The executor's spill directory when it exposes one, else a private default; null when the
 * composition's commands run on another machine (`filesHere` false), where no local copy is readable.
 */
export function spillDirOf(shell: ShellExecutor, filesHere = true): string | null {
  if (!filesHere) return null;
  const dir = (shell as { config?: { spillDir?: unknown } }).config?.spillDir;
  return typeof dir === 'string' ? dir : join(tmpdir(), `dsh-${userInfo().username}`, 'spill');
}
