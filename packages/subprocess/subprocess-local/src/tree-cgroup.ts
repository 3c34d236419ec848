/**
 * The cgroup of one process tree: membership (its whole subtree), atomic kill, release.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childGroups, ownCgroupDir, pidsDeep, populated, removeDeep } from './cgroup-fs.js';

/** The cgroup of one process tree. */
export class TreeCgroup {
  constructor(
    readonly dir: string,
    private readonly onRelease: (group: TreeCgroup) => void = (g) => g.remove(),
  ) {}

  /** Whether any process lives in this cgroup or below; null when unknown. */
  populated(): boolean | null {
    return populated(this.dir);
  }

  /** Pids in this cgroup and below (exited tasks leave at exit, so no zombies); null when unknown. */
  pids(): number[] | null {
    return pidsDeep(this.dir);
  }

  /**
   * SIGKILLs every member of the subtree atomically (`cgroup.kill`). Refuses (false) when this
   * process itself is inside, which only happens if moving home after a spawn failed.
   */
  kill(): boolean {
    const own = ownCgroupDir();
    if (own === null || own === this.dir || own.startsWith(`${this.dir}/`)) return false;
    try {
      writeFileSync(join(this.dir, 'cgroup.kill'), '1');
      return true;
    } catch {
      return false;
    }
  }

  /** Removes empty child cgroups a member made; true when none is left. */
  dropSubgroups(): boolean {
    const children = childGroups(this.dir);
    if (children.length === 0) return true;
    return children.every((child) => removeDeep(join(this.dir, child)));
  }

  /** Hands the cgroup back for reuse or removal. Call once, after the tree is gone. */
  release(): void {
    this.onRelease(this);
  }

  /** Removes the cgroup and its (empty) children. Safe to call more than once. */
  remove(): void {
    removeDeep(this.dir);
  }
}
