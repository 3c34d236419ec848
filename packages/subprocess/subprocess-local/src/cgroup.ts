/**
 * cgroup v2 containment (Linux): each process tree gets its own cgroup, so members that
 * escaped the session (setsid, double fork, reparented to init) are still found and killed.
 *
 * A child must start inside its cgroup, or it could fork before being moved. Node cannot run
 * code between fork and exec, so the runtime moves *itself* into the tree's cgroup for the
 * synchronous `spawn()` call and straight back: the child is born inside. Where no writable
 * cgroup v2 tree (with `cgroup.kill`) is found, `CgroupContainer.detect()` returns null and the
 * provider relies on session, group and parent-link tracking alone.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** Finds the cgroup v2 directory this process lives in, or null. */
export function ownCgroupDir(): string | null {
  let mountinfo: string;
  let membership: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    membership = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return null;
  }
  const line = membership.split('\n').find((l) => l.startsWith('0::'));
  if (!line) return null;
  const path = line.slice(3);
  for (const entry of mountinfo.split('\n')) {
    const [left, right] = entry.split(' - ');
    if (!left || !right?.startsWith('cgroup2 ')) continue;
    const fields = left.split(' ');
    const root = fields[3] ?? '/';
    const mount = fields[4];
    if (!mount) continue;
    if (root === '/') return join(mount, path);
    if (path === root || path.startsWith(`${root}/`)) return join(mount, path.slice(root.length));
  }
  return null;
}

function pidsOf(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Empty tree cgroups kept for reuse: saves a mkdir and an rmdir per spawn, bounded so idle runtimes hold few. */
export const CGROUP_POOL_MAX = 16;

/** The cgroup of one process tree. */
export class TreeCgroup {
  constructor(
    readonly dir: string,
    private readonly onRelease: (group: TreeCgroup) => void = (g) => g.remove(),
  ) {}

  /** Hands the (empty) cgroup back for reuse or removal. Call once, after the tree is gone. */
  release(): void {
    this.onRelease(this);
  }

  /** Pids in the cgroup now (exited tasks leave it at exit, so zombies are not listed). */
  pids(): number[] {
    return pidsOf(this.dir);
  }

  /** Sends SIGKILL to every member atomically (`cgroup.kill`). False when that failed. */
  kill(): boolean {
    try {
      writeFileSync(join(this.dir, 'cgroup.kill'), '1');
      return true;
    } catch {
      return false;
    }
  }

  /** Removes the (empty) cgroup. Safe to call more than once. */
  remove(): void {
    try {
      rmdirSync(this.dir);
    } catch {
      // still populated (EBUSY) or already gone
    }
  }
}

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

/** Creates per-tree cgroups under one private parent cgroup of this process. */
export class CgroupContainer {
  private counter = 0;
  private readonly pool: TreeCgroup[] = [];
  private homeFd = -1;

  private constructor(
    private readonly home: string,
    private readonly base: string,
  ) {}

  /** A container when a writable cgroup v2 tree with `cgroup.kill` is available, else null. */
  static detect(): CgroupContainer | null {
    const home = ownCgroupDir();
    if (!home || !existsSync(join(home, 'cgroup.procs'))) return null;
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
      return container;
    } catch {
      container.enter(home, true);
      container.dispose();
      return null;
    }
  }

  /** The private parent cgroup directory. */
  get baseDir(): string {
    return this.base;
  }

  /** A fresh cgroup for one tree, or null when it cannot be made. */
  create(): TreeCgroup | null {
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

  private recycle(group: TreeCgroup): void {
    if (this.homeFd >= 0 && this.pool.length < CGROUP_POOL_MAX && group.pids().length === 0) this.pool.push(group);
    else group.remove();
  }

  /**
   * Runs `start` (a synchronous spawn) with this process inside `group`, so the child is born
   * there, then moves back home. If the move in fails, `start` still runs, uncontained.
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
      if (contained) this.enter(this.home, true);
    }
  }

  /** Removes the private parent cgroup and any empty tree cgroups left in it. */
  dispose(): void {
    undisposed.delete(this);
    this.pool.length = 0;
    if (this.homeFd >= 0) closeSync(this.homeFd);
    this.homeFd = -1;
    try {
      for (const name of readdirSync(this.base)) {
        if (/^t\d+$/.test(name)) new TreeCgroup(join(this.base, name)).remove();
      }
    } catch {
      // base already gone
    }
    new TreeCgroup(this.base).remove();
  }

  private enter(dir: string, quiet = false): void {
    try {
      if (dir === this.home && this.homeFd >= 0) writeSync(this.homeFd, String(process.pid));
      else writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
    } catch (error) {
      if (!quiet) throw error;
    }
  }
}
