/**
 * Owner checks for every directory dsh makes or reuses on this machine (the output root, its run
 * directories, the session log root and its day and session directories). On a multi-user host
 * another user can make `/tmp/dsh-<user>` first, wide open, and then read or swap what dsh puts
 * there (spill files, the stand-in editor). So a directory dsh uses must be a real directory (not
 * a symbolic link), owned by this user and closed to everyone else: one that is ours but wider is
 * tightened to 0700; anything else is refused with `UNSAFE_DIRECTORY`.
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { DshError } from './errors.js';

/** The code of a refused directory (a symlink, not a directory, or owned by another user). */
export const UNSAFE_DIRECTORY = 'UNSAFE_DIRECTORY';

/** What {@link ensurePrivateDir} says a refused directory is, and what to do about it. */
export interface PrivateDirOptions {
  /** What the directory is for, e.g. "The output directory". @default "The directory" */
  what?: string;
  /** How to choose another, e.g. "choose another with config.output.dir". @default "choose another" */
  remedy?: string;
}

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function refuse(path: string, reason: string, problem: string, options: PrivateDirOptions, extra = {}): never {
  const what = options.what ?? 'The directory';
  const remedy = options.remedy ?? 'choose another';
  throw new DshError(UNSAFE_DIRECTORY, `${what} ${path} ${problem}; remove it, or ${remedy}.`, {
    data: { path, reason, ...extra },
  });
}

/** Refuses `st` (of `path`) unless it is a directory of ours. */
function judge(path: string, st: Stats, options: PrivateDirOptions): void {
  if (st.isSymbolicLink()) {
    refuse(path, 'symlink', 'is a symbolic link (whoever can change it decides where dsh writes)', options);
  }
  if (!st.isDirectory()) refuse(path, 'not_directory', 'is not a directory', options);
  const me = uid();
  if (me !== null && st.uid !== me) {
    refuse(
      path,
      'not_owner',
      `is owned by uid ${st.uid}, not by this user (uid ${me}): that user could read or replace dsh's files there`,
      options,
      { owner: st.uid, uid: me },
    );
  }
}

/** Checks one existing directory and tightens it to 0700 when it is ours but open to others. */
function checkOne(path: string, options: PrivateDirOptions): void {
  const seen = lstatSync(path);
  judge(path, seen, options);
  if ((seen.mode & 0o077) === 0) return;
  // Tighten through a descriptor of the very directory judged (no symlink is followed), so a
  // swap between the check and the chmod cannot redirect it.
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    judge(path, fstatSync(fd), options);
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `path` (and any missing parents, each 0700) unless it exists, then checks that it — and
 * every parent it made — is a directory, not a symbolic link, owned by this user and closed to
 * group and others. One that is ours but open wider is tightened to 0700; parents that already
 * existed are not judged (they are the user's choice, like `/tmp` or `$HOME`).
 * @throws DshError `UNSAFE_DIRECTORY` (data: `path`, `reason`: `symlink` | `not_directory` |
 * `not_owner`) when it is not safe to use; the message says what is wrong and what to do.
 */
export function ensurePrivateDir(path: string, options: PrivateDirOptions = {}): void {
  const target = resolve(path);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    try {
      lstatSync(at);
      break;
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
      missing.unshift(at);
      if (dirname(at) === at) break;
    }
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') throw error; // made meanwhile: judged below like the rest
    }
  }
  for (const dir of missing) if (dir !== target) checkOne(dir, options);
  checkOne(target, options);
}

/** Whether `path` is `root` or lies under it (both absolute; no file system access). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Makes the new directory `path` (0700; its parent must exist) and checks it: unlike
 * {@link ensurePrivateDir}, one that already exists is refused, since its name was fresh.
 * @throws DshError `UNSAFE_DIRECTORY` (`reason: 'exists'`) when something is already there.
 */
export function makeFreshPrivateDir(path: string, options: PrivateDirOptions = {}): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') {
      refuse(path, 'exists', 'already exists though its name was just chosen (someone else made it)', options);
    }
    throw error;
  }
  checkOne(path, options);
}
