/**
 * The transcript of a session: the text of rows that left the screen, bounded, with offsets
 * counted since the session began (so a count of what was dropped is always exact).
 */

const LF = 10;

/** A bounded text buffer: keeps the last `maxChars` characters (from a line's start), counts all of them. */
export class Scrollback {
  private text = '';
  private total = 0;
  private rowCount = 0;

  constructor(private readonly maxChars: number) {}

  /** Characters appended since the start. */
  get end(): number {
    return this.total;
  }

  /**
   * Oldest offset still kept: the start of the first whole line within the last `maxChars`
   * characters (a line's tail read alone looks like a value of its own: `6271` of `56271`); the
   * cut itself when one line fills them all.
   */
  get start(): number {
    const cut = this.total - Math.min(this.text.length, this.maxChars);
    const kept = this.total - this.text.length;
    if (cut === kept) return cut; // nothing dropped yet
    const at = cut - kept; // the trim keeps the character before the cut: whether a line ends there is known
    if (this.text.charCodeAt(at - 1) === LF) return cut;
    const lf = this.text.indexOf('\n', at);
    return lf < 0 || lf + 1 >= this.text.length ? cut : kept + lf + 1;
  }

  /** True once a row was appended (the next unwrapped row starts with a line break). */
  get hasRows(): boolean {
    return this.rowCount > 0;
  }

  append(chunk: string): void {
    if (chunk === '') return;
    this.text += chunk;
    this.total += chunk.length;
    // Amortized trim, keeping one character before the cut (see start).
    if (this.text.length > this.maxChars * 2) this.text = this.text.slice(this.text.length - this.maxChars - 1);
  }

  /** `count` screen rows, already joined: each unwrapped row after the first row ever starts with a line break. */
  appendRows(text: string, count: number): void {
    this.append(text);
    this.rowCount += count;
  }

  /** Text from `from` to `to` (clamped to what is kept); `lost` tells how many requested characters were dropped. */
  slice(from: number, to: number = this.total): { text: string; lost: number } {
    const kept = this.total - this.text.length;
    const start = this.start;
    const begin = Math.max(from, start);
    const end = Math.min(Math.max(to, begin), this.total);
    return { text: this.text.slice(begin - kept, end - kept), lost: Math.max(0, Math.min(to, start) - from) };
  }
}
