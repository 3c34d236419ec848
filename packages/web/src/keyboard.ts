/**
 * A person's keystrokes into a terminal. Keys are typed as they come, through the terminal's
 * typing turn: while a model's send holds the terminal they are refused (TERMINAL_BUSY), and
 * while a person types, a model's send is. Ctrl-C is the terminal's cancel: it interrupts
 * whatever runs in the foreground and drops what was typed ahead; at an idle prompt (nothing to
 * interrupt) it is typed as it is, and the shell clears its line (see `ctx.terminals.cancel`).
 */
import type { Owner } from '@dsh/core';
import type { TerminalService } from '@dsh/terminal';
import { WEB_KEY_WAIT_MS } from './limits.js';

/** What the keyboard sends for Ctrl-C. */
const INTERRUPT = '\x03';

/** The keyboard of one terminal. */
export class KeyQueue {
  /** Keys after a Ctrl-C wait for its cancel to settle, so they land after the interrupt. */
  private after: Promise<void> = Promise.resolve();
  /** Steps still chained behind an interrupt: keys typed meanwhile join the chain. */
  private chained = 0;

  constructor(
    private readonly terminals: TerminalService,
    private readonly owner: Owner,
    private readonly id: string,
    /** Told when keystrokes could not be typed (a model's send holds the terminal, or it is gone). */
    private readonly refused: (error: unknown) => void,
  ) {}

  /** Keystrokes from the page. */
  type(data: string): void {
    const at = data.indexOf(INTERRUPT);
    if (at >= 0) {
      this.type(data.slice(0, at));
      this.chain(() => this.interrupt());
      this.type(data.slice(at + 1));
      return;
    }
    if (data === '') return;
    if (this.chained > 0) this.chain(async () => this.write(data));
    else this.write(data);
  }

  private chain(step: () => Promise<void>): void {
    this.chained += 1;
    this.after = this.after.then(step).finally(() => {
      this.chained -= 1;
    });
  }

  private write(data: string): void {
    try {
      this.terminals.type(this.owner, this.id, data);
    } catch (error) {
      this.refused(error);
    }
  }

  private async interrupt(): Promise<void> {
    try {
      await this.terminals.cancel(this.owner, this.id, { timeoutMs: WEB_KEY_WAIT_MS, keyboard: true });
    } catch (error) {
      this.refused(error);
    }
  }
}
