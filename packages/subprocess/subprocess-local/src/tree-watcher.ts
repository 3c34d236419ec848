/**
 * One shared poller that tells when process trees are gone: every tick is a single /proc
 * snapshot serving every watched root, so many waiters cost one scan, not one each.
 */
import { procAvailable, snapshotProcs, treeMembers } from './proc-table.js';
import { signalGroup } from './signals.js';

/** First poll delay after a new watch: trees of short commands are usually gone by then. */
export const TREE_POLL_MIN_MS = 5;
/** Slowest poll: bounds how late a gone tree is noticed, and the cost of long-lived trees (10 scans/s). */
export const TREE_POLL_MAX_MS = 100;

/** True when the tree rooted at `root` has no live member now. */
export function treeIsGone(root: number): boolean {
  if (!procAvailable()) return !signalGroup(root, 0);
  return treeMembers(snapshotProcs(), root).length === 0;
}

interface Watch {
  promise: Promise<void>;
  resolve: () => void;
}

/** Watches roots until their trees are gone. */
export class TreeWatcher {
  private readonly watches = new Map<number, Watch>();
  private timer: NodeJS.Timeout | undefined;
  private delay = TREE_POLL_MIN_MS;

  /** Resolves once no member of `root`'s tree is alive. Shared per root. */
  watch(root: number): Promise<void> {
    const existing = this.watches.get(root);
    if (existing) return existing.promise;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    this.watches.set(root, { promise, resolve });
    this.delay = TREE_POLL_MIN_MS;
    this.schedule(0);
    return promise;
  }

  /** Checks now instead of at the next tick (e.g. right after a SIGKILL). */
  poke(): void {
    this.delay = TREE_POLL_MIN_MS;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    const procs = procAvailable() ? snapshotProcs() : null;
    for (const [root, w] of this.watches) {
      const gone = procs ? treeMembers(procs, root).length === 0 : !signalGroup(root, 0);
      if (gone) {
        this.watches.delete(root);
        w.resolve();
      }
    }
    if (this.watches.size === 0) return;
    this.delay = Math.min(this.delay * 2, TREE_POLL_MAX_MS);
    this.schedule(this.delay);
  }
}
