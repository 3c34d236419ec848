/**
 * Client side of a collected stream: a mirror of the server's collector. It keeps the same
 * tail (so synchronous, non-consuming reads work here) and reports the server's spill path:
 * the complete copy lives where the command ran.
 */
import { OutputCollector, type OutputRead, type OutputReader } from '@dsh/subprocess';

/** A reader fed by the channel. */
export class MirrorReader implements OutputReader {
  private readonly tail: OutputCollector;
  private spill: string | null = null;
  private failure: string | null = null;

  constructor(maxBytes: number) {
    this.tail = new OutputCollector({ maxBytes });
  }

  get totalBytes(): number {
    return this.tail.totalBytes;
  }

  get settled(): boolean {
    return this.tail.settled;
  }

  get cutOff(): boolean {
    return this.tail.cutOff;
  }

  read(offset: number): OutputRead {
    return { ...this.tail.read(offset), spillPath: this.spill };
  }

  readBytes(offset: number): Buffer {
    return this.tail.readBytes(offset);
  }

  /** Bytes that arrived. */
  push(bytes: Buffer): void {
    this.tail.push(bytes);
  }

  /** Bytes the server produced but did not send (they fell out of its tail). */
  skip(bytes: number): void {
    this.tail.skip(bytes);
  }

  /** The server's complete copy moved (opened, or discarded: null; `error` when writing it failed). */
  setSpill(path: string | null, error: string | null = null): void {
    this.spill = path;
    if (error !== null) this.failure = error;
  }

  /** Why the server's complete copy could not be written, else null. */
  get spillError(): string | null {
    return this.failure;
  }

  /** The stream ended on the server (or the channel was lost). */
  finish(cutOff: boolean): void {
    this.tail.finish({ cutOff });
  }
}
