/**
 * A world's share directory: a private directory of its own on this machine
 * (`<tmpdir>/dsh-<user>/share/<pid>-<hex>`), bound read-only inside at {@link WORLD_SHARE_DIR}.
 * dsh places unix sockets there after the world started (a sub-agent's `shareTools` server);
 * the world's programs may connect to them and can neither add nor replace an entry. No other
 * world sees it. It is removed with the world, and after a crash by the next dsh of that user.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, sweepDeadDirs } from '@dsh/core';

/** Where a world sees its share directory. */
export const WORLD_SHARE_DIR = '/run/dsh/share';

/** A share directory's name: its maker's pid, then a random part. */
const SHARE_NAME = /^(\d+)-[0-9a-f]+$/;

/**
 * Makes a share directory beside the fence's files in `fenceDir`.
 * @throws DshError `UNSAFE_DIRECTORY` when its parent is not private.
 */
export function makeShareDir(fenceDir: string): string {
  const root = join(dirname(fenceDir), 'share');
  ensurePrivateDir(root, {
    what: 'The worlds’ share directory',
    remedy: 'set TMPDIR to a directory of your own, and retry',
  });
  sweepDeadDirs(root, SHARE_NAME);
  const dir = join(root, `${process.pid}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** Removes a share directory (and the sockets in it). */
export function removeShareDir(dir: string | null): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
