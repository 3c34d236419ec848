/**
 * The prompt markers of one session: only markers carrying its nonce, each newer than the last,
 * count; the latest is kept with where it was parsed. Waiters learn of the first one.
 */
import { type PromptMarker, parseMarker } from './rcfile.js';
import type { Mark, Screen } from './screen.js';

export type PlacedMarker = PromptMarker & { at: Mark };

export class PromptWatch {
  /** The newest genuine marker. */
  latest: PlacedMarker | null = null;
  /** `performance.now()` when it was parsed. */
  seenAt = 0;
  /** The wall clock (epoch ms) when it was parsed: foreground facts older than this predate the prompt. */
  wallAt = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly nonce: string,
    private readonly view: Screen,
  ) {}

  /** An OSC 133 payload parsed at `at`; `inUse` is a mark the session still needs (not forgotten). True for a new genuine prompt. */
  parsed(payload: string, at: Mark, inUse: Mark | number): boolean {
    const m = parseMarker(payload, this.nonce);
    if (!m || (this.latest && m.seq <= this.latest.seq)) {
      this.view.forget(at); // a forgery, or an old prompt
      return false;
    }
    if (this.latest && this.latest.at !== inUse) this.view.forget(this.latest.at);
    this.latest = { ...m, at };
    this.seenAt = performance.now();
    this.wallAt = Date.now();
    this.wake();
    return true;
  }

  /** The prompt of a send: newer than the send, and after the shell accepted the input when it went to the prompt. */
  ownPrompt(send: { startSeq: number; toShell: boolean; acceptedAt: Mark | null }): PlacedMarker | null {
    const m = this.latest;
    if (m === null || m.seq <= send.startSeq) return null;
    const accepted = send.acceptedAt;
    // Parse order, not screen position: a program may have moved the cursor up (clear) after the line was accepted.
    if (send.toShell && (accepted === null || m.at.order < accepted.order)) return null;
    return m;
  }

  /** The first marker, once parsed; null when `ms` pass first or the session ends (wake). */
  first(ms: number): Promise<PlacedMarker | null> {
    if (this.latest) return Promise.resolve(this.latest);
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(finish);
        resolve(this.latest);
      };
      const timer = setTimeout(finish, ms);
      this.waiters.add(finish);
    });
  }

  /** Tells every waiter to look again (a marker came, or the session ended). */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
