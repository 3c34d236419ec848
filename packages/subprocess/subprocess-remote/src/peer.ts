/**
 * One end of a channel: frames written to a writable in order, frames read from a readable, and
 * the writable's backpressure made visible (`backedUp`, `onDrain`) so a sender can stop reading
 * its sources instead of buffering without bound.
 */
import type { Readable, Writable } from 'node:stream';
import { dataFrames, FrameDecoder, jsonFrame, type Message } from './frames.js';

/** What a peer tells its owner. */
export interface PeerHandlers {
  message(message: Message): void;
  data(id: number, bytes: Buffer): void;
  /** The channel ended; `reason` is null for a clean end of input. */
  closed(reason: string | null): void;
}

/** A framed, ordered, backpressure-aware channel end. */
export class Peer {
  private readonly decoder: FrameDecoder;
  private isClosed = false;
  private waiting = false;
  private readonly drainers = new Set<() => void>();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly handlers: PeerHandlers,
  ) {
    this.decoder = new FrameDecoder(handlers.message, handlers.data);
    input.on('data', this.onData);
    input.once('end', () => this.close(null));
    input.once('close', () => this.close(null));
    input.on('error', (e: Error) => this.close(`the channel failed: ${e.message}`));
    output.on('error', (e: Error) => this.close(`the channel failed: ${e.message}`));
    output.on('drain', this.onDrain);
  }

  /** True while the writable holds more than its high-water mark. */
  get backedUp(): boolean {
    return this.waiting;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  send(message: Message): void {
    this.write(jsonFrame(message));
  }

  sendData(id: number, bytes: Uint8Array): void {
    for (const frame of dataFrames(id, bytes)) this.write(frame);
  }

  /** Calls `fn` once the writable drained (at once when it is not backed up). */
  onceDrained(fn: () => void): void {
    if (!this.waiting) fn();
    else this.drainers.add(fn);
  }

  /** Stops reading and ends the writable (the peer sees the end of its input). */
  end(): void {
    if (!this.output.writableEnded) this.output.end();
  }

  /** Marks the channel closed, once. */
  close(reason: string | null): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.input.off('data', this.onData);
    this.output.off('drain', this.onDrain);
    const fns = [...this.drainers];
    this.drainers.clear();
    for (const fn of fns) fn();
    this.handlers.closed(reason);
  }

  private write(frame: Buffer): void {
    if (this.isClosed || this.output.destroyed || this.output.writableEnded) return;
    if (!this.output.write(frame)) this.waiting = true;
  }

  private readonly onData = (chunk: Buffer): void => {
    try {
      this.decoder.push(chunk);
    } catch (error) {
      this.close(error instanceof Error ? error.message : String(error));
      this.end();
    }
  };

  private readonly onDrain = (): void => {
    this.waiting = false;
    const fns = [...this.drainers];
    this.drainers.clear();
    for (const fn of fns) fn();
  };
}
