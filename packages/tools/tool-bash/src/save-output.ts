/**
 * Complete copies of output a model was shown only the end of, when no spill file holds it:
 * written (mode 0600) into the shell's spill directory, so a truncation note can always name
 * where the rest is.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { ShellExecutor } from '@dsh/shell';

/** The executor's spill directory when it exposes one, else a private default. */
export function spillDirOf(shell: ShellExecutor): string {
  const dir = (shell as { config?: { spillDir?: unknown } }).config?.spillDir;
  return typeof dir === 'string' ? dir : join(tmpdir(), `dsh-${userInfo().username}`, 'spill');
}

/** Writes `text` to a new private file in `dir`; its path, or null when it could not be written. */
export function saveText(dir: string, label: string, text: string): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `dsh-${process.pid}-${randomBytes(8).toString('hex')}.${label}`);
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    return path;
  } catch {
    return null;
  }
}
