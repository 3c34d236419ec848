/**
 * The bounded collector every provider shares: keeps the tail of a stream in memory,
 * counts every byte, optionally spills the whole stream to a private file, and serves
 * any number of independent, non-consuming readers.
 */
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DshError } from '@dsh/core';
import { TAIL_COPY_MIN_WASTE } from './limits.js';
import type { OutputRead, OutputReader, SpillSpec } from './types.js';
import { completePrefixLength, leadingPartialBytes } from './utf8.js';
import { writablePath } from './writable-alias.js';

/** Options of an {@link OutputCollector}. */
export interface OutputCollectorOptions {
  /** Bytes of tail kept in memory. */
  maxBytes: number;
  /** Complete copy on disk, created once the stream outgrows `maxBytes`. @default none */
  spill?: SpillSpec;
  /** Short name put in the spill file name (e.g. `stdout`). @default 'out' */
  label?: string;
}

type SpillState = 'none' | 'open' | 'closed' | 'discarded' | 'failed';

/**
 * Told what happens to a collector, for providers that mirror it elsewhere (the channel runtime
 * streams a server-side collector to the client). Listeners must not throw.
 */
export interface CollectorObserver {
  /** Bytes just pushed (the same buffer the collector keeps; do not modify it). */
  chunk?(bytes: Buffer): void;
  /** The complete copy's path changed: a spill file opened, or it was discarded / failed (null). */
  spill?(path: string | null, error: string | null): void;
  /** The stream ended; `cutOff` as in {@link OutputCollector.finish}. */
  finish?(cutOff: boolean): void;
}

/**
 * A bounded, non-consuming store of one output stream.
 *
 * Spill: the file is created (mode 0600, directory 0700) only when the stream first grows past
 * `maxBytes`, since until then the tail is the complete stream. Writes are synchronous page-cache
 * writes, so the file is complete the moment {@link finish} returns. Past `spill.maxBytes` the
 * file is deleted and `spillPath` becomes null: an incomplete copy is never offered.
 */
export class OutputCollector implements OutputReader {
  private readonly maxBytes: number;
  private readonly spill: SpillSpec | undefined;
  private readonly label: string;
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  private total = 0;
  private done = false;
  private wasCutOff = false;
  private spillState: SpillState = 'none';
  private spillFd = -1;
  private spillFile: string | null = null;
  private spillFailure: string | null = null;
  private readonly observers = new Set<CollectorObserver>();

  constructor(options: OutputCollectorOptions) {
    this.maxBytes = options.maxBytes;
    this.spill = options.spill;
    this.label = options.label ?? 'out';
  }

  /** Bytes the stream has produced so far. */
  get totalBytes(): number {
    return this.total;
  }

  /** True once {@link finish} ran. */
  get settled(): boolean {
    return this.done;
  }

  /** True when some of the stream is no longer in memory. */
  get truncated(): boolean {
    return this.total > this.keptBytes;
  }

  /** Whole-stream offset of the first byte still in memory. */
  get tailStart(): number {
    return this.total - this.keptBytes;
  }

  /** Path of the complete stream on disk, while it is complete; else null. */
  get spillPath(): string | null {
    return this.spillState === 'open' || this.spillState === 'closed' ? this.spillFile : null;
  }

  /** Why the spill file could not be written (e.g. ENOSPC), else null. Over-limit discards are not failures. */
  get spillError(): string | null {
    return this.spillFailure;
  }

  /** Subscribes to pushes, spill changes and the finish. Returns the unsubscribe. */
  observe(observer: CollectorObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Appends bytes. Ignored after {@link finish}. */
  push(chunk: Uint8Array): void {
    if (this.done || chunk.length === 0) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.total += buf.length;
    const before = this.spillPath;
    if (this.spill) this.spillChunk(buf);
    this.chunks.push(buf);
    this.keptBytes += buf.length;
    this.trim();
    for (const o of this.observers) o.chunk?.(buf);
    if (this.spillPath !== before) for (const o of this.observers) o.spill?.(this.spillPath, this.spillFailure);
  }

  /**
   * Counts `bytes` produced that this collector never receives (a mirror whose source skipped
   * what fell out of the tail). Everything kept so far is older than them, so it is dropped:
   * the tail stays contiguous. Ignored after {@link finish}.
   */
  skip(bytes: number): void {
    if (this.done || !(bytes > 0)) return;
    this.total += bytes;
    this.chunks = [];
    this.keptBytes = 0;
  }

  /** True when the stream was closed by us (post-exit drain over) while some process still held it open. */
  get cutOff(): boolean {
    return this.wasCutOff;
  }

  /**
   * Marks the stream ended and closes the spill file (which stays on disk: it holds every byte
   * that was read). `cutOff` records that the pipe was closed while a process still held it, so
   * whatever it would have written later was never produced. Idempotent.
   */
  finish(options: { cutOff?: boolean } = {}): void {
    if (this.done) return;
    this.done = true;
    this.wasCutOff = options.cutOff === true;
    if (this.spillState === 'open') {
      this.closeSpill();
      this.spillState = 'closed';
    }
    for (const o of this.observers) o.finish?.(this.wasCutOff);
  }

  /** Deletes the spill file, if any; `spillPath` becomes null. For owners that retire a result. */
  discardSpill(): void {
    const before = this.spillPath;
    if (this.spillState === 'open') this.closeSpill();
    if (this.spillState === 'open' || this.spillState === 'closed') this.unlinkSpill();
    if (this.spillState !== 'failed') this.spillState = 'discarded';
    if (before !== null) for (const o of this.observers) o.spill?.(null, this.spillFailure);
  }

  readBytes(offset: number): Buffer {
    this.checkOffset(offset);
    return Buffer.from(this.slice(Math.max(offset, this.tailStart)));
  }

  private checkOffset(offset: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.total) {
      throw new DshError(
        'INVALID_ARGUMENT',
        `read offset must be an integer in [0, ${this.total}]; pass 0 or the nextOffset of the previous read.`,
        { data: { offset, totalBytes: this.total } },
      );
    }
  }

  read(offset: number): OutputRead {
    this.checkOffset(offset);
    const tailStart = this.tailStart;
    const lossy = offset < tailStart;
    let start = lossy ? tailStart : offset;
    let bytes = this.slice(start);
    if (start > 0) {
      const skip = leadingPartialBytes(bytes);
      bytes = bytes.subarray(skip);
      start += skip;
    }
    const usable = this.done ? bytes.length : completePrefixLength(bytes);
    const decoded = bytes.subarray(0, usable);
    return {
      text: decoded.toString('utf8'),
      nextOffset: start + usable,
      lossy,
      spillPath: this.spillPath,
      bytes: usable,
      invalidUtf8: !isUtf8(decoded),
    };
  }

  /** The kept bytes from whole-stream offset `from` (≥ tailStart) to the end. */
  private slice(from: number): Buffer {
    let skip = from - this.tailStart;
    const parts: Buffer[] = [];
    for (const chunk of this.chunks) {
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      parts.push(skip > 0 ? chunk.subarray(skip) : chunk);
      skip = 0;
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  private trim(): void {
    let excess = this.keptBytes - this.maxBytes;
    while (excess > 0) {
      const head = this.chunks[0] as Buffer;
      if (head.length <= excess) {
        this.chunks.shift();
        this.keptBytes -= head.length;
        excess -= head.length;
        continue;
      }
      const rest = head.subarray(excess);
      this.chunks[0] = excess > TAIL_COPY_MIN_WASTE ? Buffer.from(rest) : rest;
      this.keptBytes -= excess;
      excess = 0;
    }
  }

  private spillChunk(buf: Buffer): void {
    const spill = this.spill as SpillSpec;
    if (this.spillState === 'none') {
      if (this.total <= this.maxBytes) return;
      if (this.total > spill.maxBytes) {
        this.spillState = 'discarded';
        return;
      }
      if (!this.openSpill(spill.dir)) return;
      for (const kept of this.chunks) if (!this.writeSpill(kept)) return;
      this.writeSpill(buf);
      return;
    }
    if (this.spillState !== 'open') return;
    if (this.total > spill.maxBytes) {
      this.closeSpill();
      this.unlinkSpill();
      this.spillState = 'discarded';
      return;
    }
    this.writeSpill(buf);
  }

  private openSpill(dir: string): boolean {
    try {
      mkdirSync(writablePath(dir), { recursive: true, mode: 0o700 });
      const file = join(dir, `dsh-${process.pid}-${randomBytes(8).toString('hex')}.${this.label}`);
      this.spillFd = openSync(writablePath(file), 'wx', 0o600);
      this.spillFile = file;
      this.spillState = 'open';
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private writeSpill(buf: Buffer): boolean {
    try {
      let written = 0;
      while (written < buf.length) written += writeSync(this.spillFd, buf, written, buf.length - written);
      return true;
    } catch (error) {
      this.closeSpill();
      this.unlinkSpill();
      this.fail(error);
      return false;
    }
  }

  private fail(error: unknown): void {
    this.spillState = 'failed';
    this.spillFailure = error instanceof Error ? error.message : String(error);
  }

  private closeSpill(): void {
    if (this.spillFd < 0) return;
    try {
      closeSync(this.spillFd);
    } catch {
      // already closed: nothing left to release
    }
    this.spillFd = -1;
  }

  private unlinkSpill(): void {
    if (this.spillFile === null) return;
    try {
      unlinkSync(writablePath(this.spillFile));
    } catch {
      // already gone
    }
  }
}
