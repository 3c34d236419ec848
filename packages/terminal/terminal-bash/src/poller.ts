/**
 * Polling of the foreground facts while a send waits: the first look comes fast after input or
 * output, then each waits twice as long, up to POLL_MAX_MS.
 */
import { POLL_MAX_MS, POLL_MIN_MS } from './config.js';

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private delay = POLL_MIN_MS;

  /** `look` runs at each tick; it returns whether to keep polling. */
  constructor(private readonly look: () => boolean) {}

  /** The next tick after this one comes fast again. */
  hurry(): void {
    this.delay = POLL_MIN_MS;
  }

  /** (Re)starts the ticks. */
  start(): void {
    this.stop();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.look()) return;
      this.delay = Math.min(this.delay * 2, POLL_MAX_MS);
      this.start();
    }, this.delay);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
