/**
 * cgroup v2 containment (Linux): each process tree gets its own cgroup, so members that
 * escaped the session (setsid, double fork, reparented to init) are still found and killed.
 *
 * A child is born in the host's nursery and moved into its cgroup as the spawn returns, with
 * every stray it forked before (see nursery.ts); in strict mode it is born inside instead: the
 * host moves *itself* into the tree's cgroup for the synchronous `spawn()` call and straight
 * back (two moves of a multi-threaded process: slower). Moves are process-wide, so containment
 * is used on the main thread only (worker threads fall back).
 * Where no writable cgroup v2 tree with `cgroup.kill` exists, `detect()` returns null and the
 * provider relies on session, group and parent-link tracking alone.
 *
 * Limits: a member running as the same user can write itself into another cgroup it may write
 * to (e.g. our home cgroup) and so leave the tree; that needs intent, not accident.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { isPidAlive } from '@dsh/core';
import { childGroups, populated, removeDeep } from './cgroup-fs.js';
import { homeCgroup, NURSERY_NAME, Nursery } from './nursery.js';
import { TreeCgroup } from './tree-cgroup.js';
import { WATCHDOG } from './watchdog.js';

/** Empty tree cgroups kept for reuse: saves a mkdir and an rmdir per spawn, bounded so idle runtimes hold few. */
export const CGROUP_POOL_MAX = 16;
/** A killed stale cgroup is looked at this often, this many times, before it is left for the next sweep. */
const STALE_SWEEP_RETRY_MS = 50;
const STALE_SWEEP_TRIES = 40;
/** Name of a host's parent cgroup: `dsh-<host pid>-<random>`. */
const BASE_NAME = /^dsh-(\d+)-[0-9a-f]+$/;

/** Containers not yet disposed; on process exit their empty cgroups are removed (best effort). */
const undisposed = new Set<CgroupContainer>();
let exitHookInstalled = false;

function trackForExit(container: CgroupContainer): void {
  undisposed.add(container);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    // A running watchdog ends the live trees (and removes their cgroups) once this process is
    // gone: unregistering them here would let them live on.
    if (WATCHDOG.running) return;
    for (const c of undisposed) c.dispose();
  });
}

/**
 * Ends and removes what dsh hosts that died left behind (their watchdog, normally, already did):
 * the tree cgroups under a parent cgroup whose host pid is dead are killed, then removed once
 * empty. Its nursery holds the dead host's own children, if any: they are left alone.
 */
export function sweepStale(home: string): void {
  for (const name of childGroups(home)) {
    const m = BASE_NAME.exec(name);
    if (!m || isPidAlive(Number(m[1]))) continue;
    const dir = join(home, name);
    for (const child of childGroups(dir)) {
      const sub = join(dir, child);
      if (child === NURSERY_NAME || populated(sub) === false) continue;
      try {
        writeFileSync(join(sub, 'cgroup.kill'), '1');
      } catch {
        // not ours to end
      }
    }
    removeWhenEmpty(dir, STALE_SWEEP_TRIES);
  }
}

/** Removes the empty cgroups in and under `dir` once its (killed) members are gone, looking again a few times. */
function removeWhenEmpty(dir: string, tries: number): void {
  for (const child of childGroups(dir)) if (populated(join(dir, child)) === false) removeDeep(join(dir, child));
  if (removeDeep(dir) || tries <= 0) return;
  setTimeout(() => removeWhenEmpty(dir, tries - 1), STALE_SWEEP_RETRY_MS).unref();
}

/** Creates per-tree cgroups for one runtime, under the host's parent cgroup. */
export class CgroupContainer {
  private counter = 0;
  private readonly pool: TreeCgroup[] = [];
  private broken = false;
  private disposed = false;

  private constructor(
    private readonly nursery: Nursery,
    private readonly dir: string,
    /** Children are born inside their cgroup (the host moves itself for each spawn). */
    private readonly strict: boolean,
  ) {}

  /**
   * A container when a writable cgroup v2 tree with `cgroup.kill` is available (main thread only),
   * else null. `strict` has children born inside their cgroup.
   */
  static detect(strict = false): CgroupContainer | null {
    if (!isMainThread) return null;
    const home = homeCgroup();
    if (!home || !existsSync(join(home, 'cgroup.procs'))) return null;
    sweepStale(home);
    const nursery = Nursery.acquire(home);
    if (!nursery) return null;
    const dir = nursery.runtimeDir();
    if (!dir) {
      nursery.release();
      return null;
    }
    const container = new CgroupContainer(nursery, dir, strict);
    trackForExit(container);
    return container;
  }

  /** This runtime's parent cgroup of its trees. */
  get baseDir(): string {
    return this.dir;
  }

  /** A fresh (or recycled, empty) cgroup for one tree; null when none can be made or the container broke. */
  create(): TreeCgroup | null {
    if (this.broken || this.disposed) return null;
    const pooled = this.pool.pop();
    if (pooled) return pooled;
    const dir = join(this.dir, `t${++this.counter}`);
    try {
      mkdirSync(dir);
      return new TreeCgroup(dir, (g) => this.recycle(g));
    } catch {
      return null;
    }
  }

  /** Takes back a tree's cgroup once its tree was proven empty (or never started): pooled, else removed. */
  private recycle(group: TreeCgroup): void {
    // Empty child cgroups a member made may stay: they hold nothing, and go at dispose.
    if (!this.broken && !this.disposed && this.pool.length < CGROUP_POOL_MAX) this.pool.push(group);
    else group.remove();
  }

  /**
   * Runs `start` (a synchronous spawn) so that its child ends up in `group`, with everything it
   * starts: moved in with its strays as the spawn returns, or (strict) born inside. Not contained
   * when that fails; the tree then falls back to session tracking.
   */
  spawnInside<T extends { pid?: number | undefined }>(
    group: TreeCgroup,
    start: () => T,
  ): { value: T; contained: boolean } {
    if (!this.strict) {
      const value = start();
      return { value, contained: value.pid !== undefined && this.nursery.adopt(group, value.pid) };
    }
    let contained = false;
    try {
      this.nursery.enter(group);
      contained = true;
    } catch {
      // fall through: run uncontained rather than not at all
    }
    try {
      return { value: start(), contained };
    } finally {
      if (contained && !this.nursery.returnHome()) this.broken = true;
    }
  }

  /** Removes this runtime's cgroups; the last container closes the nursery. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    undisposed.delete(this);
    for (const g of this.pool.splice(0)) g.remove();
    removeDeep(this.dir);
    this.nursery.release();
  }
}
