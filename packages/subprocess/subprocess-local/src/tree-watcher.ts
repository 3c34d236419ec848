/**
 * One shared poller that tells when process trees are gone: every tick is a single /proc
 * snapshot serving every watched tree, so many waiters cost one scan, not one each.
 */
import { type ProcessTree, type ProcSnapshot, takeSnapshot } from './process-tree.js';

/** First poll delay after a new watch: trees of short commands are usually gone by then. */
export const TREE_POLL_MIN_MS = 5;
/** Slowest poll: bounds how late a gone tree is noticed, and the cost of long-lived trees (10 scans/s). */
export const TREE_POLL_MAX_MS = 100;

interface Watch {
  promise: Promise<void>;
  resolve: () => void;
  /** Outstanding waiters; the watch is dropped when the last one lets go. */
  waiters: number;
}

/** A waiter's view of a watch: the promise, and a way to stop waiting. */
export interface TreeWait {
  readonly gone: Promise<void>;
  /** Stops this waiter; the tree stops being polled once no waiter is left. */
  release(): void;
}

/** Watches trees until they are gone. */
export class TreeWatcher {
  private readonly watches = new Map<ProcessTree, Watch>();
  private timer: NodeJS.Timeout | undefined;
  private delay = TREE_POLL_MIN_MS;

  /** Waits until no member of `tree` is alive. Waiters on one tree share its polling. */
  watch(tree: ProcessTree): TreeWait {
    if (tree.isGone) return { gone: Promise.resolve(), release: () => undefined };
    let w = this.watches.get(tree);
    if (!w) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      w = { promise, resolve, waiters: 0 };
      this.watches.set(tree, w);
      this.poke();
    }
    const watch = w;
    watch.waiters += 1;
    let released = false;
    return {
      gone: watch.promise,
      release: () => {
        if (released) return;
        released = true;
        watch.waiters -= 1;
        if (watch.waiters === 0 && this.watches.get(tree) === watch) {
          this.watches.delete(tree);
          if (this.watches.size === 0) this.stop();
        }
      },
    };
  }

  /** Checks now instead of at the next tick (e.g. right after a signal). */
  poke(): void {
    this.delay = TREE_POLL_MIN_MS;
    this.schedule(0);
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    this.stop();
    this.timer = setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    if (this.watches.size === 0) return;
    let procs: ProcSnapshot | undefined; // taken at most once per tick, only if an uncontained tree needs it
    for (const [tree, w] of this.watches) {
      if (!tree.isGone && !tree.contained && procs === undefined) procs = takeSnapshot();
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
