/**
 * A person's keystrokes into a session (ctx.terminals.type): written in order, each paste paced
 * like a send's input. A cancel drops what was typed and not yet written, as Ctrl-C drops
 * typed-ahead input on a real terminal.
 */
import { writePaced } from './paced-writer.js';

export class PersonKeys {
  /** The keys written so far, in order. */
  private chain: Promise<void> = Promise.resolve();
  /** Bumped by `drop()`: keys typed before it and not yet written are not written. */
  private epoch = 0;

  constructor(
    private readonly write: (chunk: string) => void,
    /** Whether the session is gone (exited or closing): nothing more is written. */
    private readonly gone: () => boolean,
  ) {}

  /** Queues `data` after the keys before it; `caughtUp` paces it. Resolves once written or dropped. */
  type(data: string, caughtUp: () => boolean): Promise<void> {
    if (this.gone()) return Promise.resolve();
    const epoch = this.epoch;
    const stopped = (): boolean => this.gone() || this.epoch !== epoch;
    this.chain = this.chain.then(() => writePaced(this.write, data, caughtUp, stopped));
    return this.chain;
  }

  /** Drops every key typed so far and not yet written. */
  drop(): void {
    this.epoch += 1;
  }
}
