/**
 * What a foreground call has read of its running command so far, bounded: the last line for
 * progress reports, and the tail shown when the call hands the command over to a job.
 */
import { keepTail, keepTailLines } from '@dsh/shell';
import { MODEL_OUTPUT_MAX_CHARS, TRAILER_RESERVE_CHARS } from './limits.js';

/** Section lines of incremental reads; not output of the command. */
const SECTION = /^\[\/?stderr\]$/;

/** A bounded tail of incremental reads. */
export class OutputTail {
  private text = '';
  /** Characters read and no longer kept. */
  private dropped = 0;
  /** Bytes the command produced that no read returned (dropped from memory first). */
  private skipped = 0;

  /** Appends one incremental read. */
  add(read: { text: string; skipped: number }): void {
    this.skipped += read.skipped;
    if (read.text === '') return;
    this.text += read.text;
    const max = MODEL_OUTPUT_MAX_CHARS - TRAILER_RESERVE_CHARS;
    if (this.text.length > 2 * max) {
      const kept = keepTail(this.text, max);
      this.dropped += this.text.length - kept.length;
      this.text = kept;
    }
  }

  /** The last non-empty output line ('' when none). */
  lastLine(): string {
    const lines = this.text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = (lines[i] as string).trim();
      if (line !== '' && !SECTION.test(line)) return line;
    }
    return '';
  }

  /** The kept text, with a note when some was dropped (from memory or from this buffer). */
  render(): string {
    const max = MODEL_OUTPUT_MAX_CHARS - TRAILER_RESERVE_CHARS;
    const shown = keepTailLines(this.text, max);
    const omitted = this.dropped + this.text.length - shown.length;
    const notes: string[] = [];
    if (this.skipped > 0)
      notes.push(`[note: ${this.skipped} bytes of output were dropped from memory before they could be read]`);
    if (omitted > 0) notes.push(`[note: ${omitted} earlier characters of this output are not shown]`);
    return [...notes, shown].filter((s) => s !== '').join('\n');
  }
}
