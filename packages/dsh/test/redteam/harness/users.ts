/**
 * Who dsh runs as in the red-team suite: root (this machine and CI run as root) and an ordinary
 * user the suite creates when it is missing (as the ssh tests do for theirs). The account stays;
 * every file and process the suite makes for it goes.
 */
import { execFileSync } from 'node:child_process';

/** The ordinary user every row also runs as. */
export const FENCE_USER = 'dshfence';

/** A host account dsh runs as. */
export interface FenceUser {
  /** `root` or {@link FENCE_USER}. */
  name: string;
  uid: number;
  gid: number;
  root: boolean;
}

/** The root account. */
export const ROOT: FenceUser = { name: 'root', uid: 0, gid: 0, root: true };

function idOf(name: string, flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
}

/**
 * The ordinary user, created (with a home and bash) when missing.
 * @throws when the suite does not run as root (it cannot create or become another user).
 */
export function ensureFenceUser(): FenceUser {
  if (process.getuid?.() !== 0) throw new Error('the red-team suite runs as root (it also runs dsh as another user)');
  try {
    execFileSync('id', ['-u', FENCE_USER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--create-home', '--shell', '/bin/bash', FENCE_USER], { stdio: 'inherit' });
  }
  return { name: FENCE_USER, uid: idOf(FENCE_USER, '-u'), gid: idOf(FENCE_USER, '-g'), root: false };
}
