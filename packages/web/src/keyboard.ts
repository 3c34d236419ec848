/**
 * A person's keystrokes into a terminal, through the same exclusive send a model uses. Keys
 * typed while the person's previous send still holds the terminal wait and go together in the
 * next one (typed ahead, in order). Ctrl-C is the terminal's cancel: it interrupts whatever runs
 * in the foreground and drops what was typed ahead; at an idle prompt it is typed as it is.
 */
import { isDshError, type Owner } from '@dsh/core';
import type { TerminalService } from '@dsh/terminal';
import { WEB_KEY_WAIT_MS } from './limits.js';

/** What the keyboard sends for Ctrl-C. */
const INTERRUPT = '\x03';

/** One send's worth of keystrokes: the text, and whether it ended with Enter. */
export interface KeyPiece {
  text: string;
  submit: boolean;
}

/**
 * Keystrokes as sends: split after each Enter (CR), each piece ending in Enter submits its text;
 * what follows the last Enter is typed without one. `"ls\rpw"` → `ls` + Enter, then `pw`.
 */
export function keyPieces(data: string): KeyPiece[] {
  const pieces: KeyPiece[] = [];
  let rest = data;
  for (let at = rest.indexOf('\r'); at >= 0; at = rest.indexOf('\r')) {
    pieces.push({ text: rest.slice(0, at), submit: true });
    rest = rest.slice(at + 1);
  }
  if (rest !== '') pieces.push({ text: rest, submit: false });
  return pieces;
}

/** The keyboard of one terminal (shared by every page typing into it). */
export class KeyQueue {
  private pending = '';
  private sending = false;

  constructor(
    private readonly terminals: TerminalService,
    private readonly owner: Owner,
    private readonly id: string,
    /** Told when keystrokes could not be typed (the terminal is busy with another's send, or gone). */
    private readonly refused: (error: unknown) => void,
  ) {}

  /** Keystrokes from the page. */
  type(data: string): void {
    const at = data.indexOf(INTERRUPT);
    if (at >= 0) {
      this.type(data.slice(0, at));
      void this.interrupt().then(() => this.type(data.slice(at + 1)));
      return;
    }
    if (data === '') return;
    this.pending += data;
    if (!this.sending) void this.flush();
  }

  private async interrupt(): Promise<void> {
    this.pending = ''; // typed ahead: dropped, as Ctrl-C at a real terminal drops it
    try {
      const result = await this.terminals.cancel(this.owner, this.id, { timeoutMs: WEB_KEY_WAIT_MS });
      if (result === null) await this.send({ text: INTERRUPT, submit: false }); // idle prompt: clears the line
    } catch (error) {
      this.refused(error);
    }
  }

  private async flush(): Promise<void> {
    this.sending = true;
    try {
      while (this.pending !== '') {
        const data = this.pending;
        this.pending = '';
        for (const piece of keyPieces(data)) await this.send(piece);
      }
    } finally {
      this.sending = false;
    }
  }

  private async send(piece: KeyPiece): Promise<void> {
    try {
      await this.terminals.send(this.owner, this.id, { ...piece, timeoutMs: WEB_KEY_WAIT_MS });
    } catch (error) {
      if (isDshError(error, 'TERMINAL_BUSY')) this.pending = ''; // not typed: the agent holds the terminal
      this.refused(error);
    }
  }
}
