/**
 * A person's typing turn on one terminal: keys go to the session as they come, and the turn
 * holds the terminal until every key is written and {@link TYPING_HOLD_MS} passed without a new
 * one (a long paste holds it while it is written). When it ends, the keys typed in it are told to
 * the listeners as one event (the session log records it).
 */
import type { Owner } from '@dsh/core';
import { TYPING_HOLD_MS } from './limits.js';
import type { TerminalId } from './types.js';

/** Told when a typing turn ends: whose terminal, which one, and every key typed in the turn. */
export type TerminalTypeListener = (owner: Owner, event: { terminalId: TerminalId; input: string }) => void;

/** One turn. */
export class TypingTurn {
  private input = '';
  private timer: NodeJS.Timeout | undefined;
  private quiet = false;
  private writing = 0;
  private ended = false;

  constructor(
    private readonly owner: Owner,
    private readonly terminalId: TerminalId,
    private readonly listeners: ReadonlySet<TerminalTypeListener>,
    /** Called once when the turn ends (the terminal is free again). */
    private readonly onEnd: () => void,
  ) {}

  /** Keys were typed (`written` settles once the session wrote them): the turn goes on. */
  add(data: string, written: Promise<void>): void {
    this.input += data;
    this.quiet = false;
    this.writing += 1;
    void written.finally(() => {
      this.writing -= 1;
      if (this.quiet && this.writing === 0) this.end();
    });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.quiet = true;
      if (this.writing === 0) this.end();
    }, TYPING_HOLD_MS);
    this.timer.unref();
  }

  /** Ends the turn now (a cancel, a close). Idempotent. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.onEnd();
    for (const listener of this.listeners) {
      try {
        listener(this.owner, { terminalId: this.terminalId, input: this.input });
      } catch {
        // a listener's failure must not break the terminal
      }
    }
  }
}
