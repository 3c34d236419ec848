/**
 * Directories named after the dsh process that made them (`run-<pid>-…`, `home-<pid>-…`): once
 * that process is gone, nothing removes them but the next dsh of the same user.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Whether process `pid` exists (one of another user's counts: it is not ours to judge dead). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the entries of `root` whose name matches `pattern` (its first group is the maker's pid)
 * and whose maker is gone; this process's own stay. A missing or unreadable `root` is left alone.
 */
export function sweepDeadDirs(root: string, pattern: RegExp): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (pid > 0 && pid !== process.pid && !isPidAlive(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
}
