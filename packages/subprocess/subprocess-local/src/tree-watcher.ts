/**
 * One shared poller that tells when process trees are gone: every tick is a single /proc
 * snapshot serving every watched tree, so many waiters cost one scan, not one each.
 */
import { type ProcessTree, takeSnapshot } from './process-tree.js';

/** First poll delay after a new watch: trees of short commands are usually gone by then. */
export const TREE_POLL_MIN_MS = 5;
/** Slowest poll: bounds how late a gone tree is noticed, and the cost of long-lived trees (10 scans/s). */
export const TREE_POLL_MAX_MS = 100;

interface Watch {
  promise: Promise<void>;
  resolve: () => void;
}

/** Watches trees until they are gone. */
export class TreeWatcher {
  private readonly watches = new Map<ProcessTree, Watch>();
  private timer: NodeJS.Timeout | undefined;
  private delay = TREE_POLL_MIN_MS;

  /** Resolves once no member of `tree` is alive. Shared per tree. */
  watch(tree: ProcessTree): Promise<void> {
    if (tree.isGone) return Promise.resolve();
    const existing = this.watches.get(tree);
    if (existing) return existing.promise;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    this.watches.set(tree, { promise, resolve });
    this.poke();
    return promise;
  }

  /** Checks now instead of at the next tick (e.g. right after a signal). */
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
    if (this.watches.size === 0) return;
    const procs = takeSnapshot();
    for (const [tree, w] of this.watches) {
      if (tree.checkGone(procs)) {
        this.watches.delete(tree);
        w.resolve();
      }
    }
    if (this.watches.size === 0) return;
    this.delay = Math.min(this.delay * 2, TREE_POLL_MAX_MS);
    this.schedule(this.delay);
  }
}
