/**
 * No delayed escape through the person's own tools: inside the writable roots, the files that a
 * person's tools later run unconfined stay read-only in restricted modes — git's hooks and config
 * (hooksPath, fsmonitor, filter and diff drivers live there), `.gitmodules`, direnv's `.envrc`,
 * editor settings, MCP client config and dsh's own. The index, objects, refs and `HEAD` stay
 * writable, so a model's `git add` and `git commit` work; in a linked worktree (whose `.git` file
 * points outside the workspace) the main repository's store is bound writable, its hooks and
 * config are not.
 *
 * Limits: only paths that exist when the world starts are covered (a repository the agent makes
 * later is its own, and a `.envrc` or `.mcp.json` it creates where there was none is not
 * read-only: those tools ask before trusting a new one); `git config` writes fail in a protected
 * repository. A missing `.git/hooks` of an existing repository is made (empty) to be bound.
 */
import { lstatSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** Paths under each writable root that are bound read-only when they exist. */
export const PROTECTED_NAMES: readonly string[] = [
  '.git/hooks',
  '.git/config',
  '.git/config.worktree',
  '.git/commondir',
  '.git/modules',
  '.git/worktrees',
  '.gitmodules',
  '.envrc',
  '.vscode',
  '.idea',
  '.mcp.json',
  '.dsh',
];

const inside = (path: string, roots: readonly string[]): boolean =>
  roots.some((r) => path === r || path.startsWith(`${r}/`));

/**
 * `path` (under `root`) as the kernel reaches it, for a bind of it onto itself: itself when no
 * part of it below the root is a symbolic link; else the real path when that is inside `roots`
 * (what the link points at is what the person's tools will read); null when it points elsewhere
 * (bubblewrap would follow the link and bind that place: a host directory made writable, a
 * hidden file unmasked) or does not exist.
 */
export function bindable(path: string, root: string, roots: readonly string[]): string | null {
  let linked = false;
  for (let at = path; at !== root && at.startsWith(`${root}/`); at = dirname(at)) {
    try {
      if (lstatSync(at).isSymbolicLink()) linked = true;
    } catch {
      // missing here: the real path says
    }
  }
  if (!linked) return path;
  try {
    const real = realpathSync(path);
    return inside(real, roots) ? real : null;
  } catch {
    return null;
  }
}

/**
 * What a linked worktree's `.git` file points at (its git dir and the repository's common dir),
 * only when the repository says the same: the git dir is `<common>/worktrees/<name>` and its
 * `gitdir` file points back at this `.git` (git's own bookkeeping, outside the workspace, which
 * no confined command can write). A `.git` file a command wrote names any directory it likes.
 */
function linkedGitDirs(root: string): { gitDir: string; commonDir: string } | null {
  let text: string;
  try {
    text = readFileSync(join(root, '.git'), 'utf8');
  } catch {
    return null;
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m?.[1]) return null;
  try {
    const gitDir = realpathSync(isAbsolute(m[1]) ? m[1] : resolve(root, m[1]));
    const back = readFileSync(join(gitDir, 'gitdir'), 'utf8').trim();
    if (realpathSync(isAbsolute(back) ? back : resolve(gitDir, back)) !== realpathSync(join(root, '.git'))) return null;
    const commonDir = dirname(dirname(gitDir)); // <common>/worktrees/<name>
    if (basename(dirname(gitDir)) !== 'worktrees' || !isDir(join(commonDir, 'objects'))) return null;
    return { gitDir, commonDir };
  } catch {
    return null;
  }
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What protects `roots`: directories to bind writable first (each root's `.git`, pinned as a mount
 * point, and a linked worktree's repository store outside the roots), then the paths to bind
 * read-only over them where they exist when the world starts (checked there). `allowed` paths
 * (absolute) are left writable. On this machine (`local`) every path is first made bindable (no
 * symbolic link below its root leads out of the roots), and linked worktrees are read; a world
 * elsewhere protects only the fixed names.
 */
export function protectedPaths(
  roots: readonly string[],
  allowed: readonly string[] = [],
  local = true,
): { writable: string[]; readOnly: string[] } {
  const writable: string[] = [];
  const readOnly: string[] = [];
  const keep = (path: string): boolean => !allowed.some((a) => path === a || path.startsWith(`${a}/`));
  /** Binds `path` (under `root`) read-only, as `within` lets a link below `root` lead. */
  const guard = (path: string, root: string, within: readonly string[] = roots): void => {
    const at = local ? bindable(path, root, within) : path;
    if (at !== null && keep(at) && !readOnly.includes(at)) readOnly.push(at);
  };
  for (const root of roots) {
    // `.git` itself becomes a mount point (bound onto itself), so it cannot be renamed away and
    // replaced by one whose hooks and config are the command's.
    const git = local ? bindable(join(root, '.git'), root, roots) : join(root, '.git');
    if (git !== null && !writable.includes(git)) writable.push(git);
    for (const name of PROTECTED_NAMES) guard(join(root, name), root);
    if (local && git !== null && isDir(git) && !isDir(join(git, 'hooks'))) {
      // git makes it at init; one removed since is made again (empty), so it can be bound read-only.
      try {
        mkdirSync(join(git, 'hooks'), { mode: 0o755 });
        guard(join(git, 'hooks'), root);
      } catch {
        // not ours to make: left unprotected (it does not exist, so nothing runs from it yet)
      }
    }
    if (!local || git === null || isDir(git)) continue;
    const linked = linkedGitDirs(root);
    if (!linked) continue;
    if (!inside(linked.commonDir, roots) && !writable.includes(linked.commonDir)) writable.push(linked.commonDir);
    // The store is writable in the world: a link in it may lead anywhere in it, not out of it.
    const within = [...roots, linked.commonDir];
    const store = (path: string): void => guard(path, linked.commonDir, within);
    for (const name of ['hooks', 'config', 'config.worktree', 'commondir', 'modules'])
      store(join(linked.commonDir, name));
    store(join(linked.gitDir, 'config.worktree'));
    store(join(linked.gitDir, 'commondir'));
  }
  return { writable, readOnly };
}
