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
import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Paths under each writable root that are bound read-only when they exist. */
export const PROTECTED_NAMES: readonly string[] = [
  '.git/hooks',
  '.git/config',
  '.git/modules',
  '.gitmodules',
  '.envrc',
  '.vscode',
  '.idea',
  '.mcp.json',
  '.dsh',
];

/** What a linked worktree's `.git` file points at: its git dir and the repository's common dir. */
function linkedGitDirs(root: string): { gitDir: string; commonDir: string } | null {
  let text: string;
  try {
    text = readFileSync(join(root, '.git'), 'utf8');
  } catch {
    return null;
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m?.[1]) return null;
  const gitDir = isAbsolute(m[1]) ? m[1] : resolve(root, m[1]);
  let commonDir = dirname(dirname(gitDir)); // <common>/worktrees/<name>
  try {
    const rel = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    if (rel) commonDir = isAbsolute(rel) ? rel : resolve(gitDir, rel);
  } catch {
    // no commondir file: the usual layout
  }
  return { gitDir, commonDir };
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
 * point, and a linked worktree's repository store outside the roots), then the paths to bind read-only over them where they exist when the world
 * starts (checked there). `allowed` paths (absolute) are left writable. Linked worktrees are read
 * from this machine's files (`local`), so a world elsewhere protects only the fixed names.
 */
export function protectedPaths(
  roots: readonly string[],
  allowed: readonly string[] = [],
  local = true,
): { writable: string[]; readOnly: string[] } {
  const writable: string[] = [];
  const readOnly: string[] = [];
  const keep = (path: string): boolean => !allowed.some((a) => path === a || path.startsWith(`${a}/`));
  const guard = (path: string): void => {
    if (keep(path) && !readOnly.includes(path)) readOnly.push(path);
  };
  for (const root of roots) {
    // `.git` itself becomes a mount point (bound onto itself), so it cannot be renamed away and
    // replaced by one whose hooks and config are the command's.
    writable.push(join(root, '.git'));
    for (const name of PROTECTED_NAMES) guard(join(root, name));
    if (local && isDir(join(root, '.git')) && !isDir(join(root, '.git', 'hooks'))) {
      // git makes it at init; one removed since is made again (empty), so it can be bound read-only.
      try {
        mkdirSync(join(root, '.git', 'hooks'), { mode: 0o755 });
      } catch {
        // not ours to make: left unprotected (it does not exist, so nothing runs from it yet)
      }
    }
    if (!local || isDir(join(root, '.git'))) continue;
    const linked = linkedGitDirs(root);
    if (!linked) continue;
    const inside = roots.some((r) => linked.commonDir === r || linked.commonDir.startsWith(`${r}/`));
    if (!inside && isDir(linked.commonDir) && !writable.includes(linked.commonDir)) writable.push(linked.commonDir);
    guard(join(linked.commonDir, 'hooks'));
    guard(join(linked.commonDir, 'config'));
    guard(join(linked.gitDir, 'config.worktree'));
  }
  return { writable, readOnly };
}
