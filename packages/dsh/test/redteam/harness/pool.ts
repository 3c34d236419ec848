/**
 * How many row runs go at once (the suite's machines have two cores), and which never overlap:
 * runs sharing a lock go one at a time, and a `*` run goes alone.
 */

/** Row runs at once, by default. */
export const DEFAULT_CONCURRENCY = 3;

interface Waiter {
  lock: string | undefined;
  go: () => void;
}

/** A semaphore with named locks and an exclusive one (`*`). */
export class Pool {
  private running = 0;
  private exclusive = false;
  private readonly held = new Set<string>();
  private readonly queue: Waiter[] = [];

  constructor(private readonly capacity = DEFAULT_CONCURRENCY) {}

  /** Runs `task` when a slot (and its lock) is free. */
  async run<T>(lock: string | undefined, task: () => Promise<T>): Promise<T> {
    await new Promise<void>((go) => {
      this.queue.push({ lock, go });
      this.pump();
    });
    try {
      return await task();
    } finally {
      this.running -= 1;
      if (lock === '*') this.exclusive = false;
      else if (lock) this.held.delete(lock);
      this.pump();
    }
  }

  private fits(w: Waiter): boolean {
    if (this.exclusive) return false;
    if (w.lock === '*') return this.running === 0;
    if (this.running >= this.capacity) return false;
    return !w.lock || !this.held.has(w.lock);
  }

  private pump(): void {
    for (let i = 0; i < this.queue.length; ) {
      const w = this.queue[i] as Waiter;
      // An exclusive waiter at the head holds back everything behind it, so it is not starved.
      if (!this.fits(w)) {
        if (w.lock === '*') return;
        i += 1;
        continue;
      }
      this.queue.splice(i, 1);
      this.running += 1;
      if (w.lock === '*') this.exclusive = true;
      else if (w.lock) this.held.add(w.lock);
      w.go();
    }
  }
}
