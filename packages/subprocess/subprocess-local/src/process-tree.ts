/**
 * Membership and signalling of one managed process tree. A contained tree is exactly its
 * cgroup subtree (every member was born inside). Otherwise the tree is the root's session and
 * process group plus their descendants by parent link, guarded against pid reuse by the root's
 * start time. Anything that cannot be read is "unknown", never "gone".
 */
import { type ProcEntry, procAvailable, readProc, snapshotProcs, treeMembers } from './proc-table.js';
import { signalGroup, signalProcess } from './signals.js';
import type { TreeCgroup } from './tree-cgroup.js';
import { WATCHDOG } from './watchdog.js';

/** A snapshot of the process table; null where there is no /proc or it could not be read. */
export type ProcSnapshot = readonly ProcEntry[] | null;

/** Takes a snapshot where /proc exists. */
export function takeSnapshot(): ProcSnapshot {
  return procAvailable() ? snapshotProcs() : null;
}

/** One tree, rooted at a child we started as session and group leader. */
export class ProcessTree {
  private gone = false;
  /** Start time of the root, read right after spawn; undefined where /proc is missing. */
  private readonly rootStart: number | undefined;

  constructor(
    /** Pid of the direct child, which is also the session id and process group id. */
    readonly root: number,
    /** The tree's own cgroup, when containment is available (dropped if it vanishes under the tree). */
    private cgroup: TreeCgroup | null,
  ) {
    // Only session tracking needs the pid-reuse guard: a contained tree is its cgroup.
    this.rootStart = cgroup === null && procAvailable() ? readProc(root)?.start : undefined;
    if (cgroup === null) WATCHDOG.watchGroup(root); // its cgroup ends a contained tree should the host die
  }

  /** True once the tree was observed empty. From then on nothing is ever signalled. */
  get isGone(): boolean {
    return this.gone;
  }

  /** Whether the tree can be checked without a /proc snapshot (it has its own cgroup). */
  get contained(): boolean {
    return this.cgroup !== null;
  }

  /**
   * True when the tree's cgroup was removed under it (someone moved its members out and deleted
   * it): the tree is tracked by session, group and parent links from then on.
   */
  private cgroupVanished(): boolean {
    const group = this.cgroup;
    if (!group || group.exists()) return false;
    group.remove();
    this.cgroup = null;
    WATCHDOG.watchGroup(this.root);
    return true;
  }

  /** Whether the tree is empty now; remembers (and releases the cgroup) once it is. Unknown counts as not gone. */
  checkGone(procs?: ProcSnapshot): boolean {
    if (this.gone) return true;
    let empty: boolean;
    const group = this.cgroup;
    const inside = group?.populated();
    if (group && !(inside === false && this.cgroupVanished())) empty = inside === false;
    else if (!procAvailable()) empty = !signalGroup(this.root, 0);
    else {
      const snapshot = procs === undefined ? takeSnapshot() : procs;
      empty = snapshot !== null && treeMembers(snapshot, this.root, this.rootStart).length === 0;
    }
    if (empty) this.markGone();
    return empty;
  }

  /** Marks the tree gone without looking (it never started, or was proven empty). */
  markGone(): void {
    if (this.gone) return;
    this.gone = true;
    if (this.cgroup) this.cgroup.release();
    else WATCHDOG.unwatchGroup(this.root);
  }

  /** How many members are alive now (0 proves the tree gone); null when membership cannot be read. */
  memberCount(): number | null {
    if (this.gone) return 0;
    let count: number | null;
    if (this.cgroup && !this.cgroupVanished()) count = this.cgroup.pids()?.length ?? null;
    else {
      const procs = takeSnapshot();
      count = procs === null ? null : treeMembers(procs, this.root, this.rootStart).length;
    }
    if (count === 0) this.markGone();
    return count;
  }

  /**
   * Sends `signal` to every live member. `childAlive` (the direct child has not exited) allows
   * the direct-child fallback. Returns false, and marks the tree gone, only when it is proven
   * empty; when membership cannot be read, the group is still signalled and true returned.
   */
  signal(signal: 'SIGTERM' | 'SIGKILL', childAlive: boolean): boolean {
    if (this.gone) return false;
    if (this.cgroup && !this.cgroupVanished()) return this.signalContained(this.cgroup, signal, childAlive);
    const procs = takeSnapshot();
    if (!procs) {
      const sent = signalGroup(this.root, signal) || (childAlive && signalProcess(this.root, signal));
      if (!sent && !procAvailable()) this.markGone();
      return sent || procAvailable();
    }
    const members = treeMembers(procs, this.root, this.rootStart);
    if (members.length === 0) {
      this.markGone();
      return false;
    }
    const inGroup = new Set(members.filter((m) => m.pgid === this.root).map((m) => m.pid));
    const groupSent = inGroup.size > 0 && signalGroup(this.root, signal);
    if (!groupSent && childAlive) signalProcess(this.root, signal); // direct-child fallback
    for (const m of members) if (!groupSent || !inGroup.has(m.pid)) signalProcess(m.pid, signal);
    return true;
  }

  private signalContained(cgroup: TreeCgroup, signal: 'SIGTERM' | 'SIGKILL', childAlive: boolean): boolean {
    if (cgroup.populated() === false) {
      this.markGone();
      return false;
    }
    const killed = signal === 'SIGKILL' && cgroup.kill();
    if (killed) return true;
    // The root's group gets the signal once; members that left the group (escapees) one by one.
    // A member signalled both ways would get it twice (a trap would run twice).
    const groupSent = signalGroup(this.root, signal) || (childAlive && signalProcess(this.root, signal));
    for (const pid of cgroup.pids() ?? []) {
      if (groupSent && (pid === this.root || readProc(pid)?.pgid === this.root)) continue;
      signalProcess(pid, signal);
    }
    return true;
  }
}
