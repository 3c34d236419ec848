/**
 * A bounded buffer of sanitized text with offsets counted since the session began.
 */
import type { ScrollbackPage } from '@dsh/terminal';

/** A bounded text buffer: keeps the last `maxChars` characters, counts all of them. */
export class Scrollback {
  private text = '';
  private total = 0;

  constructor(private readonly maxChars: number) {}

  /** Characters appended since the start. */
  get end(): number {
    return this.total;
  }

  /** Oldest offset still kept. */
  get start(): number {
    return this.total - this.text.length;
  }

  append(chunk: string): void {
    if (chunk === '') return;
    this.text += chunk;
    this.total += chunk.length;
    if (this.text.length > this.maxChars * 2) this.text = this.text.slice(this.text.length - this.maxChars); // amortized trim
  }

  /** Text from `from` to `to` (clamped to what is kept); `lost` tells how many requested characters were dropped. */
  slice(from: number, to: number = this.total): { text: string; lost: number } {
    const start = this.start;
    const begin = Math.max(from, start);
    const end = Math.min(Math.max(to, begin), this.total);
    return { text: this.text.slice(begin - start, end - start), lost: Math.max(0, Math.min(to, start) - from) };
  }

  /** A page: from `offset` (or the last `limit` characters when omitted), at most `limit` characters. */
  page(offset: number | undefined, limit: number): ScrollbackPage {
    const startOffset = Math.max(this.start, this.total - this.maxChars);
    const wanted = offset ?? Math.max(startOffset, this.total - limit);
    const from = Math.min(Math.max(wanted, startOffset), this.total);
    const to = Math.min(from + limit, this.total);
    return { text: this.slice(from, to).text, offset: from, nextOffset: to, startOffset };
  }
}
