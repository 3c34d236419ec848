/**
 * The fence's own files on the machine a world runs on (this one, or a remote one whose runtime
 * server makes them when asked to probe for the sandbox), in one private directory (`<tmpdir>/dsh-<user>/fence`,
 * 0700, owned by this user, not a symlink) that no world binds writable:
 * - an execute-only copy of Node.js for the world's runtime server: a process started from a
 *   file it cannot read is not dumpable, so the commands it runs (same user, no capabilities)
 *   cannot ptrace it, read or write its memory, or open its descriptors through `/proc`;
 * - a file no one without capabilities can read (mode 000), bound over what a world must not read;
 * - the compiled seccomp program of the worlds.
 * Every file is written under a temporary name and renamed into place, so concurrent dsh
 * processes share it safely.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, lstatSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { ensurePrivateDir } from '@dsh/core';

/** Mode of the execute-only Node.js copy: no read bit for anyone, so the server is not dumpable. */
const EXEC_ONLY = 0o111;

/** The fence's files on this machine. */
export interface FenceFiles {
  dir: string;
  /** The execute-only Node.js, or null when it could not be made (the server is then dumpable). */
  node: string | null;
  /** A file of mode 000. */
  unreadable: string;
}

/** The default fence directory. */
export function defaultFenceDir(): string {
  return join(tmpdir(), `dsh-${userInfo().username}`, 'fence');
}

const FENCE_DIR = { what: 'The fence directory', remedy: 'set TMPDIR to a directory of your own, and retry' };

/**
 * Makes `dir` and its parent private: directories of this user, mode 0700, not symlinks.
 * @throws DshError `UNSAFE_DIRECTORY` when one is a symlink, not a directory, or someone else's.
 */
export function ensurePrivateFenceDir(dir: string): void {
  ensurePrivateDir(dirname(dir), FENCE_DIR);
  ensurePrivateDir(dir, FENCE_DIR);
}

function placeFile(target: string, write: (tmp: string) => void): void {
  const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    write(tmp);
    renameSync(tmp, target);
  } finally {
    rmSync(tmp, { force: true });
  }
}

function upToDate(path: string, mode: number, size?: number): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && (st.mode & 0o7777) === mode && (size === undefined || st.size === size);
  } catch {
    return false;
  }
}

/** The execute-only copy of `program` in `dir` (made once per build of it), or null. */
function execOnlyCopy(dir: string, program: string, name: string): string | null {
  try {
    const st = statSync(program);
    const target = join(dir, `${name}-${st.size}-${Math.trunc(st.mtimeMs)}`);
    if (!upToDate(target, EXEC_ONLY, st.size)) {
      placeFile(target, (tmp) => {
        copyFileSync(program, tmp);
        chmodSync(tmp, EXEC_ONLY);
      });
    }
    return target;
  } catch {
    return null;
  }
}

/**
 * The fence's files in `dir` (made or checked now).
 * @throws DshError `UNSAFE_DIRECTORY` when `dir` is not private.
 */
export function prepareFenceFiles(dir: string = defaultFenceDir(), node: string = process.execPath): FenceFiles {
  ensurePrivateFenceDir(dir);
  const unreadable = join(dir, 'unreadable');
  if (!upToDate(unreadable, 0, 0)) {
    placeFile(unreadable, (tmp) => {
      writeFileSync(tmp, '');
      chmodSync(tmp, 0);
    });
  }
  return { dir, node: execOnlyCopy(dir, node, `node-${process.version}`), unreadable };
}

/** Writes the seccomp program as `<dir>/<name>` (content-addressed by the caller) and returns its path. */
export function placeSeccomp(dir: string, name: string, program: Buffer): string {
  const target = join(dir, name);
  if (!upToDate(target, 0o600, program.length)) {
    placeFile(target, (tmp) => {
      writeFileSync(tmp, program, { mode: 0o600 });
      chmodSync(tmp, 0o600);
    });
  }
  return target;
}
