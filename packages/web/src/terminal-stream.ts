/**
 * One page's view of one terminal: a snapshot of the screen, then the output as it is written.
 * The page acknowledges what it has drawn; when more than {@link WEB_UNACKED_MAX_CHARS} is
 * unacknowledged the stream pauses (output is dropped for this page only), and once the page has
 * caught up the screen is sent again from a fresh snapshot. A slow page costs the server a bounded
 * amount of memory and never slows the terminal down.
 */
import type { Owner } from '@dsh/core';
import type { TerminalService, TerminalWatch } from '@dsh/terminal';
import { WEB_UNACKED_MAX_CHARS } from './limits.js';
import type { ServerMessage } from './protocol.js';

/** A terminal streamed to one page. */
export class TerminalStream {
  private watch: TerminalWatch | null = null;
  private sent = 0;
  private acked = 0;
  private paused = false;
  private closed = false;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly terminals: TerminalService,
    private readonly owner: Owner,
    readonly id: string,
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

  /** The snapshot: the page redraws from it, and the count of what it has not drawn starts over. */
  private screen(data: string, cols: number, rows: number): void {
    if (this.closed) return;
    this.paused = false;
    this.sent = data.length;
    this.acked = 0;
    this.post({ type: 'screen', id: this.id, cols, rows, data });
  }

  private output(data: string): void {
    if (this.paused || this.closed) return;
    if (this.sent - this.acked > WEB_UNACKED_MAX_CHARS) {
      this.paused = true; // the page is behind: drop until it catches up, then redraw
      return;
    }
    this.sent += data.length;
    this.post({ type: 'output', id: this.id, data });
  }

  /** The page has drawn `chars` more characters. */
  ack(chars: number): void {
    this.acked = Math.min(this.sent, this.acked + chars);
    if (this.paused && this.acked >= this.sent && !this.closed) void this.start();
  }

  close(): void {
    this.closed = true;
    this.watch?.close();
    this.watch = null;
  }
}
