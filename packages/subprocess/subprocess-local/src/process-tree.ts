/**
 * Membership and signalling of one managed process tree: its session and process group, the
 * descendants of those by parent link, and (where available) every process in its cgroup.
 */
import type { TreeCgroup } from './cgroup.js';
import { type ProcEntry, procAvailable, snapshotProcs, treeMembers } from './proc-table.js';
import { signalGroup, signalProcess } from './signals.js';

/** A snapshot of the process table, or null where there is no /proc. */
export type ProcSnapshot = readonly ProcEntry[] | null;

/** Takes a snapshot where /proc exists. */
export function takeSnapshot(): ProcSnapshot {
  return procAvailable() ? snapshotProcs() : null;
}

/** One tree, rooted at a child we started as session and group leader. */
export class ProcessTree {
  private gone = false;

  constructor(
    /** Pid of the direct child, which is also the session id and process group id. */
    readonly root: number,
    /** The tree's own cgroup, when containment is available. */
    private readonly cgroup: TreeCgroup | null,
  ) {}

  /** True once the tree was observed empty. From then on nothing is ever signalled. */
  get isGone(): boolean {
    return this.gone;
  }

  /**
   * Whether the tree is empty now; remembers (and releases the cgroup) once it is. A contained
   * tree is its cgroup (every member was born inside), so no /proc snapshot is needed for it.
   */
  checkGone(procs?: ProcSnapshot): boolean {
    if (this.gone) return true;
    let empty: boolean;
    if (this.cgroup) empty = this.cgroup.pids().length === 0;
    else {
      const snapshot = procs === undefined ? takeSnapshot() : procs;
      empty = snapshot ? treeMembers(snapshot, this.root).length === 0 : !signalGroup(this.root, 0);
    }
    if (empty) this.markGone();
    return empty;
  }

  /** Whether the tree can be checked without a /proc snapshot (it has its own cgroup). */
  get contained(): boolean {
    return this.cgroup !== null;
  }

  /** Marks the tree gone without looking (it never started, or was proven empty). */
  markGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.cgroup?.release();
  }

  /**
   * Sends `signal` to every live member. `childAlive` allows the direct-child fallback when the
   * group cannot be signalled. Returns false (and marks the tree gone) when no member is left.
   */
  signal(signal: 'SIGTERM' | 'SIGKILL', childAlive: boolean): boolean {
    if (this.gone) return false;
    const procs = takeSnapshot();
    if (!procs) {
      const sent = signalGroup(this.root, signal) || (childAlive && signalProcess(this.root, signal));
      if (!sent) this.markGone();
      return sent;
    }
    const members = treeMembers(procs, this.root);
    const contained = this.cgroup?.pids() ?? [];
    if (members.length === 0 && contained.length === 0) {
      this.markGone();
      return false;
    }
    if (signal === 'SIGKILL') this.cgroup?.kill();
    const inGroup = new Set(members.filter((m) => m.pgid === this.root).map((m) => m.pid));
    const groupSent = inGroup.size > 0 && signalGroup(this.root, signal);
    if (!groupSent && childAlive) signalProcess(this.root, signal); // direct-child fallback
    for (const m of members) if (!groupSent || !inGroup.has(m.pid)) signalProcess(m.pid, signal);
    for (const pid of contained) if (!groupSent || !inGroup.has(pid)) signalProcess(pid, signal);
    return true;
  }
}
