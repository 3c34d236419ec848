/**
 * A private home per world in the restricted modes: programs' own state (vim's viminfo, shell and
 * REPL histories, `~/.local/share/…`, `~/.config/…`) is written somewhere the world owns, while
 * the real `$HOME` is never written. On the host the world gets a fresh directory bound at
 * `$HOME`, seeded from the real one: its small regular files copied (so a program can rewrite
 * its state file), symbolic links made again, and everything else bound read-only from the real
 * home. The state parents (`~/.local`, `~/.config`, `~/.cache`, …) are directories of the private
 * home with their entries placed the same way one level down, so a program can make its own
 * directory there. Paths the fence hides (denyRead) are not copied: their masks come after.
 * The directory is removed with the world (and, after a crash, by the next dsh of that user).
 */
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  type Stats,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { ensurePrivateDir, isInside, sweepDeadDirs } from '@dsh/core';

/** A regular file up to this size is copied (state files, dotfiles); a larger one is bound read-only. */
export const PRIVATE_HOME_COPY_MAX_BYTES = 256 * 1024;
/** Entries of one directory placed at most (one mount each at most): a larger home gets no private one, a larger state parent is bound read-only whole. */
export const PRIVATE_HOME_MAX_ENTRIES = 512;
/** Directories of the home that programs make their own state directories in: placed entry by entry. */
export const STATE_PARENTS: readonly string[] = ['.local', '.local/share', '.local/state', '.config', '.cache'];

/**
 * Caches whose tool fails, rather than going on without them, when they are read-only (npm:
 * EROFS on every fetch): each world starts with an empty one of its own, and the tool fetches again.
 */
export const FRESH_CACHES: readonly string[] = ['.npm'];

/**
 * The person's own typed history (commands with the secrets typed in them, files opened): each
 * world starts with an empty one of its own, which its programs may write, instead of a copy.
 */
export const HISTORY_FILES: readonly string[] = [
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
  '.lesshst',
  '.viminfo',
  '.local/share/fish/fish_history',
];

/** A private home made for one world. */
export interface PrivateHome {
  /** The real home, where the private one is bound. */
  home: string;
  /** The private home's directory on the host (removed with the world). */
  dir: string;
  /** bwrap arguments that bind it at `home` and the real entries it does not copy. */
  args: string[];
}

/** A private home's name: its maker's pid, then a random part. */
const HOME_DIR = /^home-(\d+)-/;

/** The names in `dir` when there are few enough to place one by one, else null. */
function fewNames(dir: string): string[] | null {
  try {
    const names = readdirSync(dir);
    return names.length <= PRIVATE_HOME_MAX_ENTRIES ? names : null;
  } catch {
    return null;
  }
}

/** Places the entries `names` of `real` into `dir` (the private copy of `real`, inside the home `home`). */
function seed(
  home: string,
  real: string,
  names: readonly string[],
  dir: string,
  skip: (path: string) => boolean,
  args: string[],
): void {
  for (const name of names) {
    const from = join(real, name);
    const to = join(dir, name);
    if (skip(from)) continue;
    let st: Stats;
    try {
      st = lstatSync(from);
    } catch {
      continue;
    }
    try {
      if (st.isDirectory() && FRESH_CACHES.includes(relative(home, from))) mkdirSync(to, { mode: 0o700 });
      else if (st.isFile() && HISTORY_FILES.includes(relative(home, from))) writeFileSync(to, '', { mode: 0o600 });
      else if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
      else if (st.isFile() && st.size <= PRIVATE_HOME_COPY_MAX_BYTES) copyFileSync(from, to);
      else {
        const inner = st.isDirectory() && STATE_PARENTS.includes(relative(home, from)) ? fewNames(from) : null;
        if (inner) {
          mkdirSync(to, { mode: st.mode & 0o777 });
          seed(home, from, inner, to, skip, args);
        } else args.push('--ro-bind', from, from);
      }
    } catch {
      args.push('--ro-bind', from, from); // could not copy (unreadable): bound as it is
    }
  }
}

/**
 * Makes a private home for a world, or null where there is nothing to do: `home` is `/`, not a
 * directory, hidden, or inside (or above) a writable root. `root` holds the private homes of this
 * user (`<tmpdir>/dsh-<user>/homes`); `skip` tells the paths the fence hides.
 * @throws DshError `UNSAFE_DIRECTORY` when `root` is not a private directory of this user.
 */
export function makePrivateHome(
  home: string,
  root: string,
  writableRoots: readonly string[],
  skip: (path: string) => boolean,
): PrivateHome | null {
  // A home inside a writable root is writable already.
  if (home === '/' || skip(home) || writableRoots.some((r) => isInside(home, r))) return null;
  try {
    if (!statSync(home).isDirectory()) return null;
  } catch {
    return null;
  }
  const names = fewNames(home);
  if (names === null) return null; // unreadable or too large: it stays read-only
  ensurePrivateDir(root, { what: 'The private homes directory', remedy: 'set TMPDIR to a directory of your own' });
  sweepDeadDirs(root, HOME_DIR);
  const dir = join(root, `home-${process.pid}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  const args = ['--bind', dir, home];
  seed(home, home, names, dir, skip, args);
  // The state parents exist even where the real home has none: nano makes only its own last
  // directory (`~/.local/share/nano`).
  for (const parent of STATE_PARENTS) {
    if (!existsSync(join(home, parent)) && !skip(join(home, parent))) mkdirSync(join(dir, parent), { recursive: true });
  }
  return { home, dir, args };
}

/** Removes a private home (the world ended). */
export function removePrivateHome(home: PrivateHome | null): void {
  if (home) rmSync(home.dir, { recursive: true, force: true });
}
