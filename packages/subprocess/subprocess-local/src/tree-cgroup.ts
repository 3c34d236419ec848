/**
 * The cgroup of one process tree: membership (its whole subtree), atomic kill, release. While
 * its tree lives, its `cgroup.procs` and `cgroup.events` stay open, so moving strays in and
 * asking whether it is populated (the tree watcher asks often) are one system call each.
 */
import { closeSync, existsSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ownCgroupDir, pidsDeep, populated, removeDeep } from './cgroup-fs.js';

/** Bytes read of `cgroup.events` (its two lines fit). */
const EVENTS_BYTES = 128;
const eventsBuffer = Buffer.alloc(EVENTS_BYTES);

/** The cgroup of one process tree. */
export class TreeCgroup {
  private procsFd = -1;
  private eventsFd = -1;

  constructor(
    readonly dir: string,
    private readonly onRelease: (group: TreeCgroup) => void = (g) => g.remove(),
  ) {}

  /** Moves process `pid` (this host, for a spawn) into this cgroup. @throws the write's error. */
  enter(pid: number): void {
    if (this.procsFd < 0) this.procsFd = openSync(join(this.dir, 'cgroup.procs'), 'w');
    writeSync(this.procsFd, String(pid));
  }

  /** Whether any process lives in this cgroup or below; false when it is gone; null when unknown. */
  populated(): boolean | null {
    try {
      if (this.eventsFd < 0) this.eventsFd = openSync(join(this.dir, 'cgroup.events'), 'r');
      const n = readSync(this.eventsFd, eventsBuffer, 0, EVENTS_BYTES, 0);
      const m = /^populated (\d)$/m.exec(eventsBuffer.toString('latin1', 0, n));
      return m ? m[1] === '1' : null;
    } catch {
      this.closeFds();
      return populated(this.dir); // gone (false), or unreadable (null)
    }
  }

  /** Whether the cgroup still exists. */
  exists(): boolean {
    return existsSync(this.dir);
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

  /** Hands the cgroup back for reuse or removal. Call once, after the tree is gone. */
  release(): void {
    this.closeFds(); // a pooled cgroup holds no descriptor
    this.onRelease(this);
  }

  /** Removes the cgroup and its (empty) children. Safe to call more than once. */
  remove(): void {
    this.closeFds();
    removeDeep(this.dir);
  }

  private closeFds(): void {
    for (const fd of [this.procsFd, this.eventsFd]) if (fd >= 0) closeSync(fd);
    this.procsFd = -1;
    this.eventsFd = -1;
  }
}
