/**
 * One page's view of one terminal: a snapshot of the screen, then the output as it is written.
 * The page acknowledges what it has drawn. What it has not drawn is counted across all its
 * terminals; past {@link WEB_UNACKED_MAX_CHARS} a stream pauses (output is dropped for this page
 * only), and once the page has drawn everything that stream sent, its screen is sent again from
 * a fresh snapshot. A slow page costs the server bounded memory and never slows a terminal down.
 */
import type { Owner } from '@dsh/core';
import type { TerminalService, TerminalWatch } from '@dsh/terminal';
import { WEB_UNACKED_MAX_CHARS } from './limits.js';
import type { ServerMessage } from './protocol.js';

/** Characters sent to one page and not yet acknowledged, over all its terminals. */
export interface StreamBudget {
  unacked: number;
}

/** A terminal streamed to one page. */
export class TerminalStream {
  private watch: TerminalWatch | null = null;
  /** Characters sent and acknowledged since the last snapshot (this stream's own). */
  private sent = 0;
  private acked = 0;
  private paused = false;
  private closed = false;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly terminals: TerminalService,
    private readonly owner: Owner,
    readonly id: string,
    private readonly budget: StreamBudget,
    private readonly post: (message: ServerMessage) => void,
  ) {}

  /** Starts (or restarts, after a pause) from a snapshot. */
  start(): Promise<void> {
    this.starting ??= this.begin().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async begin(): Promise<void> {
    this.watch?.close();
    this.watch = null;
    let watch: TerminalWatch;
    try {
      watch = await this.terminals.watch(this.owner, this.id, (event) => {
        if (event.kind === 'output') this.output(event.data);
        else this.screen(event.data, event.cols, event.rows);
      });
    } catch {
      return; // closed meanwhile: the list tells the page
    }
    if (this.closed) watch.close();
    else this.watch = watch;
  }

  /** The snapshot: the page redraws from it, and this stream's count starts over. */
  private screen(data: string, cols: number, rows: number): void {
    if (this.closed) return;
    this.forgetOutstanding();
    this.paused = false;
    this.count(data.length);
    this.post({ type: 'screen', id: this.id, cols, rows, data });
  }

  private output(data: string): void {
    if (this.paused || this.closed) return;
    if (this.budget.unacked > WEB_UNACKED_MAX_CHARS) {
      this.paused = true; // the page is behind: drop until it catches up, then redraw
      return;
    }
    this.count(data.length);
    this.post({ type: 'output', id: this.id, data });
  }

  private count(chars: number): void {
    this.sent += chars;
    this.budget.unacked += chars;
  }

  /** What this stream sent and was not acknowledged no longer counts (a new snapshot, a close). */
  private forgetOutstanding(): void {
    this.budget.unacked -= this.sent - this.acked;
    this.sent = 0;
    this.acked = 0;
  }

  /** The page has drawn `chars` more characters of this terminal. */
  ack(chars: number): void {
    const credited = Math.min(chars, this.sent - this.acked);
    this.acked += credited;
    this.budget.unacked -= credited;
    if (this.paused && this.acked >= this.sent && !this.closed) void this.start();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.forgetOutstanding();
    this.watch?.close();
    this.watch = null;
  }
}
