/**
 * cgroup v2 containment (Linux): each process tree gets its own cgroup, so members that
 * escaped the session (setsid, double fork, reparented to init) are still found and killed.
 *
 * A child must start inside its cgroup, or it could fork before being moved. Node cannot run
 * code between fork and exec, so the runtime moves *itself* into the tree's cgroup for the
 * synchronous `spawn()` call and straight back: the child is born inside. That move is
 * process-wide, so containment is used on the main thread only (worker threads fall back).
 * Where no writable cgroup v2 tree with `cgroup.kill` exists, `detect()` returns null and the
 * provider relies on session, group and parent-link tracking alone.
 *
 * Limits: a member running as the same user can write itself into another cgroup it may write
 * to (e.g. our home cgroup) and so leave the tree; that needs intent, not accident.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { childGroups, ownCgroupDir, populated, removeDeep } from './cgroup-fs.js';
import { TreeCgroup } from './tree-cgroup.js';
import { WATCHDOG } from './watchdog.js';

/** Empty tree cgroups kept for reuse: saves a mkdir and an rmdir per spawn, bounded so idle runtimes hold few. */
export const CGROUP_POOL_MAX = 16;
/** A killed stale cgroup is looked at this often, this many times, before it is left for the next sweep. */
const STALE_SWEEP_RETRY_MS = 50;
const STALE_SWEEP_TRIES = 40;
/** Name prefix of a runtime's private parent cgroup: `dsh-<host pid>-<random>`. */
const BASE_NAME = /^dsh-(\d+)-[0-9a-f]+$/;

/** Containers not yet disposed; on process exit their empty cgroups are removed (best effort). */
const undisposed = new Set<CgroupContainer>();
let exitHookInstalled = false;

function trackForExit(container: CgroupContainer): void {
  undisposed.add(container);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of undisposed) c.dispose();
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Ends and removes what dsh hosts that died left behind (their watchdog, normally, already did):
 * a parent cgroup whose host pid is dead is killed whole, then removed once empty.
 */
export function sweepStale(home: string): void {
  for (const name of childGroups(home)) {
    const m = BASE_NAME.exec(name);
    if (!m || pidAlive(Number(m[1]))) continue;
    const dir = join(home, name);
    if (populated(dir) !== false) {
      try {
        writeFileSync(join(dir, 'cgroup.kill'), '1');
      } catch {
        continue; // not ours to end
      }
      removeWhenEmpty(dir, STALE_SWEEP_TRIES);
    } else removeDeep(dir);
  }
}

/** Removes `dir` once its (killed) members are gone, looking again a few times. */
function removeWhenEmpty(dir: string, tries: number): void {
  if (populated(dir) === false || tries <= 0) {
    removeDeep(dir);
    return;
  }
  setTimeout(() => removeWhenEmpty(dir, tries - 1), STALE_SWEEP_RETRY_MS).unref();
}

/** Creates per-tree cgroups under one private parent cgroup of this process. */
export class CgroupContainer {
  private counter = 0;
  private readonly pool: TreeCgroup[] = [];
  private homeFd = -1;
  private broken = false;

  private constructor(
    private readonly home: string,
    private readonly base: string,
  ) {}

  /** A container when a writable cgroup v2 tree with `cgroup.kill` is available (main thread only), else null. */
  static detect(): CgroupContainer | null {
    if (!isMainThread) return null;
    const home = ownCgroupDir();
    if (!home || !existsSync(join(home, 'cgroup.procs'))) return null;
    sweepStale(home);
    const base = join(home, `dsh-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      mkdirSync(base);
    } catch {
      return null;
    }
    const container = new CgroupContainer(home, base);
    try {
      if (!existsSync(join(base, 'cgroup.kill'))) throw new Error('no cgroup.kill (kernel < 5.14)');
      container.homeFd = openSync(join(home, 'cgroup.procs'), 'w');
      container.enter(base); // probe: can we move ourselves there and back?
      container.enter(home);
      trackForExit(container);
      WATCHDOG.watchCgroup(base); // ended whole should the host die
      return container;
    } catch {
      container.goHome();
      container.dispose();
      return null;
    }
  }

  /** The private parent cgroup directory. */
  get baseDir(): string {
    return this.base;
  }

  /** A fresh (or recycled, empty) cgroup for one tree; null when none can be made or the container broke. */
  create(): TreeCgroup | null {
    if (this.broken) return null;
    const pooled = this.pool.pop();
    if (pooled) return pooled;
    const dir = join(this.base, `t${++this.counter}`);
    try {
      mkdirSync(dir);
      return new TreeCgroup(dir, (g) => this.recycle(g));
    } catch {
      return null;
    }
  }

  /** Takes back a tree's cgroup once its tree was proven empty (or never started): pooled when clean, else removed. */
  private recycle(group: TreeCgroup): void {
    const reusable = !this.broken && this.pool.length < CGROUP_POOL_MAX && group.dropSubgroups();
    if (reusable) this.pool.push(group);
    else group.remove();
  }

  /**
   * Runs `start` (a synchronous spawn) with this process inside `group`, so the child is born
   * there, then moves back home. If the move in fails, `start` still runs, uncontained. If the
   * move back fails, the container stops containing (and the tree's `cgroup.kill` refuses to
   * run while the host is inside).
   */
  spawnInside<T>(group: TreeCgroup, start: () => T): { value: T; contained: boolean } {
    let contained = false;
    try {
      this.enter(group.dir);
      contained = true;
    } catch {
      // fall through: run uncontained rather than not at all
    }
    try {
      return { value: start(), contained };
    } finally {
      if (contained && !this.goHome()) this.broken = true;
    }
  }

  /** Removes the private parent cgroup and every empty cgroup in it. */
  dispose(): void {
    undisposed.delete(this);
    WATCHDOG.unwatchCgroup(this.base);
    this.pool.length = 0;
    if (this.homeFd >= 0) closeSync(this.homeFd);
    this.homeFd = -1;
    removeDeep(this.base);
  }

  /** Moves this process home, retrying once; false when it could not. */
  private goHome(): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        this.enter(this.home);
        return true;
      } catch {
        // retry once
      }
    }
    return false;
  }

  private enter(dir: string): void {
    if (dir === this.home && this.homeFd >= 0) writeSync(this.homeFd, String(process.pid));
    else writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
  }
}
