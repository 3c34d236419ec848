/**
 * Files git reads that a repository does not have until someone makes them: `.git/commondir`
 * (git then reads the config and hooks of the directory it names) and `.git/config.worktree`.
 * Where one exists when a world starts it is bound read-only (protect.ts); one made by a
 * confined command while the world runs cannot be (a bind would create it in the person's
 * repository), so the host watches each writable root's `.git` and removes such a file as soon as
 * it appears, and once more as the world ends. Limits: the person's own git may read it in the
 * moment between its creation and its removal; a world on another machine is not watched.
 */
import { existsSync, type FSWatcher, lstatSync, rmSync, watch } from 'node:fs';
import { join } from 'node:path';
import { bindable } from './protect.js';

/** The names watched in each repository's git directory. */
export const PLANTABLE_GIT_FILES: readonly string[] = ['commondir', 'config.worktree'];

/** The host's watch over the git directories of one world's writable roots. */
export class GitPlantWatch {
  private readonly watchers: FSWatcher[] = [];
  /** Each watched file that did not exist as the world started, by path. */
  private readonly absent: string[] = [];
  /** How many planted files were removed. */
  removed = 0;

  constructor(roots: readonly string[]) {
    for (const root of roots) {
      const git = bindable(join(root, '.git'), root, roots);
      if (git === null || !isDir(git)) continue;
      const paths = PLANTABLE_GIT_FILES.map((name) => join(git, name)).filter((p) => !present(p));
      if (paths.length === 0) continue;
      this.absent.push(...paths);
      try {
        const w = watch(git, { persistent: false }, (_event, name) => {
          if (name && PLANTABLE_GIT_FILES.includes(String(name))) this.sweep();
        });
        w.on('error', () => undefined); // the directory went away: nothing left to watch there
        this.watchers.push(w);
      } catch {
        // cannot be watched here: the final sweep still runs
      }
    }
  }

  /** Removes every watched file that exists now. */
  sweep(): void {
    for (const path of this.absent) {
      if (!present(path)) continue;
      try {
        rmSync(path, { recursive: true, force: true });
        this.removed += 1;
      } catch {
        // not ours to remove
      }
    }
  }

  /** Stops watching, after a last sweep. */
  dispose(): void {
    this.sweep();
    for (const w of this.watchers.splice(0)) w.close();
  }
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a directory entry exists at `path` (a dangling link counts). */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return existsSync(path);
  }
}
