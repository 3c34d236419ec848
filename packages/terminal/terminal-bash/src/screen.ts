/**
 * The terminal emulator behind a session (`@xterm/headless`): it applies what a real terminal
 * applies (CR overwrites, cursor moves, erases, the alternate screen), answers the queries a
 * real terminal answers (cursor position, device attributes — xterm's own — and the colour
 * queries OSC 10/11/12/4, answered here), and keeps the screen. Rows that scroll off the screen
 * are final: they move, as text, into a bounded transcript. Positions are character offsets in
 * the view — transcript, then the rows still on screen — counted since the session began.
 */

import type { IMarker } from '@xterm/headless';
import { installParserHooks } from './parser-hooks.js';
import { cutPlain, onlyScrolls, PlainHold, skippedRows } from './plain-skip.js';
import { markedRows } from './screen-marks.js';
import type { Mark, ScreenHooks, ScreenSnapshot } from './screen-types.js';

export type { Mark, ScreenHooks, ScreenSnapshot } from './screen-types.js';

import { PIECE_ROWS, pieces, rowText } from './rows.js';
import { Scrollback } from './scrollback.js';
import type { SerializeModule, XtermModule, XtermTerminal } from './xterm-loader.js';

/** Rows the emulator keeps above the screen before the transcript takes them. */
export const EMULATOR_SCROLLBACK_ROWS = 2_000;

/** Rows above the screen a watcher's snapshot carries: enough to scroll back a little, bounded in size. */
export const WATCH_SNAPSHOT_SCROLLBACK_ROWS = 500;

/** One session's emulator and transcript. */
export class Screen {
  private readonly term: XtermTerminal;
  private readonly transcript: Scrollback;
  /** Absolute row of the normal buffer's row 0 (rows trimmed off its top so far). */
  private base = 0;
  /** Absolute rows moved into the transcript. */
  private pulled = 0;
  private anchor: IMarker | undefined;
  private anchorLine = 0;
  private pending = 0;
  /** Characters fed and not yet parsed. */
  private pendingChars = 0;
  /** Marks taken so far (their parse order). */
  private marks = 0;
  /** Marks on rows still on screen: fixed as their rows become final. */
  private readonly open = new Set<Mark>();
  private serializer: InstanceType<SerializeModule['SerializeAddon']> | undefined;
  /** Plain output waiting to be skipped or parsed (see plain-skip.ts). */
  private readonly held = new PlainHold((text) => this.release(text));
  /** True while held output is parsed for a caller that takes a position (see settle). */
  private settling = false;
  private parsedOwed = false;
  private rowsSkipped = 0;

  /** `skipPlain: false` parses every row of plain floods too (the reference the skip is tested against). */
  constructor(
    xterm: XtermModule,
    cols: number,
    rows: number,
    transcriptChars: number,
    private readonly hooks: ScreenHooks,
    private readonly options: { skipPlain?: boolean } = {},
  ) {
    this.term = new xterm.Terminal({ cols, rows, scrollback: EMULATOR_SCROLLBACK_ROWS, allowProposedApi: true });
    this.transcript = new Scrollback(transcriptChars);
    this.term.onData((data) => {
      if (data !== '') hooks.reply(data); // '' is the nudge feed() gives (see there)
    });
    installParserHooks(this.term, this, hooks);
    this.anchor = this.term.registerMarker(0);
    this.anchorLine = this.anchor?.line ?? 0;
  }

  /**
   * Called as the scrollback is about to be erased (CSI 3 J, as `clear` sends): the rows above
   * the screen are taken first, and the anchor goes onto the screen so the count of dropped rows
   * stays known.
   */
  beforeScrollbackErase(): void {
    if (this.term.buffer.active.type !== 'normal') return;
    this.sync();
    this.reanchor();
  }

  /** Output from the terminal. Hooks fire as it is parsed. */
  feed(text: string): void {
    if (this.options.skipPlain !== false && this.pending === 0 && this.held.takes(text)) {
      this.held.add(text);
      return;
    }
    this.held.flush();
    this.parse(text);
  }

  /** Held plain output: skipped where it only scrolls, else parsed. */
  private release(text: string): void {
    const rest = this.pending === 0 ? this.skip(text) : text;
    if (rest !== '') this.parse(rest);
  }

  /**
   * Parses the first screenful of lines, then, when the lines after them would only scroll (the
   * cursor is at the start of the bottom row by then), moves all but the last screen and watcher
   * scrollback of them into the transcript unparsed, and empties the emulator above the cursor
   * (those rows are all in the transcript by then), so no row from before the skipped ones stays
   * next to the tail. Returns what is left to parse.
   */
  private skip(text: string): string {
    const cut = cutPlain(text, this.term.rows, this.term.rows + WATCH_SNAPSHOT_SCROLLBACK_ROWS);
    if (!cut) return text;
    let parsedNow = false;
    this.parse(cut.head, () => {
      parsedNow = true;
    });
    const rest = text.slice(cut.head.length);
    if (!parsedNow || !onlyScrolls(this.term)) return rest;
    const b = this.term.buffer.normal;
    const cursorAt = b.baseY + b.cursorY;
    const row = this.liveBase() + cursorAt;
    // A mark on the cursor's row or below would fall among the skipped rows: parse them instead.
    for (const mark of this.open) if (mark.row >= row) return rest;
    this.sync(cursorAt); // the rows above the cursor are final: the skipped rows come after them
    const skipped = skippedRows(cut.skipped, this.term.cols, this.transcript.hasRows);
    this.transcript.appendRows(skipped.text, skipped.rows);
    this.rowsSkipped += skipped.rows;
    // The cursor's (empty) row becomes the emulator's first; its absolute row follows the skipped ones.
    this.anchor?.dispose();
    this.anchor = undefined;
    this.term.clear();
    this.base = row + skipped.rows;
    this.pulled = this.base;
    this.reanchor();
    return cut.tail;
  }

  /**
   * Parses held output before a position or the screen is read, so they include it. `parsed` is
   * told after the caller is done (a microtask), never in the middle of its call.
   */
  private settle(): void {
    if (this.held.size === 0) return;
    this.settling = true;
    try {
      this.held.flush();
    } finally {
      this.settling = false;
    }
    if (!this.parsedOwed) return;
    this.parsedOwed = false;
    queueMicrotask(() => {
      if (this.pending === 0) this.hooks.parsed();
    });
  }

  /** Parses output; `after` runs once it is parsed. */
  private parse(text: string, after?: () => void): void {
    for (const piece of pieces(text, this.term.cols)) {
      this.pending += 1;
      this.pendingChars += piece.length;
      // xterm parses a write that follows user input at once instead of on a timer. Parsing each
      // chunk as it is read lets the program write its next one meanwhile (a PTY buffers only a
      // few KiB); should xterm stop doing so, output is still parsed, only later.
      this.term.input('', true);
      this.term.write(piece, () => {
        this.pending -= 1;
        this.pendingChars -= piece.length;
        this.sync();
        after?.();
        if (this.pending === 0 && this.settling) this.parsedOwed = true;
        else if (this.pending === 0) this.hooks.parsed();
      });
    }
  }

  /** Characters fed and not yet parsed. */
  get backlog(): number {
    return this.pendingChars + this.held.size;
  }

  /** Rows of plain floods moved into the transcript without being parsed (see plain-skip.ts). */
  get skipped(): number {
    return this.rowsSkipped;
  }

  /** True while fed output waits to be parsed. */
  get busy(): boolean {
    return this.pending > 0 || this.held.size > 0;
  }

  /** A full-screen program holds the alternate screen. */
  get alternate(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  /** The program in front turned bracketed paste on (CSI ?2004h). */
  get bracketedPaste(): boolean {
    return this.term.modes.bracketedPasteMode;
  }

  /** The terminal asked for application cursor keys (DECCKM). */
  get applicationCursor(): boolean {
    return this.term.modes.applicationCursorKeysMode;
  }

  /** A mark where the cursor is (in the normal screen; a full-screen program leaves it where it was). */
  mark(): Mark {
    this.settle();
    const b = this.term.buffer.normal;
    // Mid-parse (a prompt marker), rows may have been trimmed since the last sync: count them too.
    return this.markAt(this.liveBase() + b.baseY + b.cursorY, b.cursorX);
  }

  /** A mark at an absolute row and column of the normal screen. */
  markAt(row: number, col: number): Mark {
    this.settle();
    const mark: Mark = { row, col, fixed: null, order: ++this.marks };
    if (mark.row < this.pulled) mark.fixed = this.transcript.end;
    else this.open.add(mark);
    return mark;
  }

  /** Parses output held back (plain-skip.ts) now, so its markers are seen. */
  parseHeld(): void {
    this.settle();
  }

  /** The absolute rows of the normal screen's top and of its cursor, and the cursor's column. */
  cursor(): { top: number; row: number; col: number } {
    this.settle();
    const b = this.term.buffer.normal;
    const top = this.liveBase() + b.baseY;
    return { top, row: top + b.cursorY, col: b.cursorX };
  }

  /** The text of an absolute row of the normal screen while it is not yet final, else null. */
  liveRow(row: number): string | null {
    this.settle();
    if (row < this.pulled) return null;
    return this.term.buffer.normal.getLine(row - this.liveBase())?.translateToString(true) ?? '';
  }

  /** Stops tracking a mark no longer needed. */
  forget(mark: Mark): void {
    this.open.delete(mark);
  }

  /** The view offset of a mark; a column past its row's text is the row's end. */
  offset(mark: Mark): number {
    if (mark.fixed !== null) return mark.fixed;
    const live = this.live();
    const at = live.rows[mark.row - this.pulled];
    if (!at) return this.transcript.end + live.text.length;
    return this.transcript.end + at.start + Math.min(mark.col, at.length);
  }

  /** The view's text between two marks (or offsets); `lost` counts characters no longer kept. */
  text(fromAt: Mark | number, toAt: Mark | number): { text: string; lost: number } {
    const from = typeof fromAt === 'number' ? fromAt : this.offset(fromAt);
    const to = typeof toAt === 'number' ? toAt : this.offset(toAt);
    const live = this.live();
    const end = this.transcript.end;
    const head = from < end ? this.transcript.slice(from, Math.min(to, end)) : { text: '', lost: 0 };
    const tail = to > end ? live.text.slice(Math.max(0, from - end), to - end) : '';
    return { text: head.text + tail, lost: head.lost };
  }

  /** The oldest view offset the transcript still keeps. */
  get keptFrom(): number {
    return this.transcript.start;
  }

  /** The view offset where the rows still on screen end (the text written so far). */
  get end(): number {
    return this.transcript.end + this.live().text.length;
  }

  /** A page of the view: from `offset` (or the last `limit` characters), at most `limit` characters. */
  page(
    offset: number | undefined,
    limit: number,
  ): { text: string; offset: number; nextOffset: number; startOffset: number } {
    const end = this.end;
    const startOffset = this.transcript.start;
    const wanted = offset ?? Math.max(startOffset, end - limit);
    const from = Math.min(Math.max(wanted, startOffset), end);
    const to = Math.min(from + limit, end);
    return { text: this.text(from, to).text, offset: from, nextOffset: to, startOffset };
  }

  /** What the screen shows now (trailing blanks trimmed). */
  snapshot(): ScreenSnapshot {
    this.settle();
    const b = this.term.buffer.active;
    const rows: string[] = [];
    // Programs clear with explicit spaces: trailing blanks are trimmed whatever wrote them.
    for (let y = 0; y < this.term.rows; y++)
      rows.push((b.getLine(b.baseY + y)?.translateToString(true) ?? '').trimEnd());
    while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
    const lines = Array.from({ length: this.term.rows }, (_, y) => b.getLine(b.baseY + y));
    const marked = markedRows(lines, this.term.cols);
    while (marked.length > 0 && marked[marked.length - 1] === '') marked.pop();
    return {
      text: rows.join('\n'),
      marked: marked.join('\n'),
      cursor: { row: b.cursorY + 1, col: b.cursorX + 1 },
      rows: this.term.rows,
      cols: this.term.cols,
      alternate: this.alternate,
    };
  }

  /**
   * The screen as terminal sequences, once everything fed before this call is parsed (and
   * nothing fed after it): what a watcher's own emulator replays before the writes that follow.
   */
  serializeParsed(serialize: SerializeModule): Promise<string> {
    this.settle();
    if (!this.serializer) {
      this.serializer = new serialize.SerializeAddon();
      this.term.loadAddon(this.serializer);
    }
    const addon = this.serializer;
    return new Promise((resolve) => {
      this.term.write('', () => resolve(addon.serialize({ scrollback: WATCH_SNAPSHOT_SCROLLBACK_ROWS })));
    });
  }

  resize(cols: number, rows: number): void {
    this.settle();
    this.term.resize(cols, rows);
  }

  dispose(): void {
    this.held.dispose();
    this.anchor?.dispose();
    this.term.dispose();
  }

  /** Rows trimmed off the normal buffer's top so far, including those since the last sync (the anchor moved up by them). */
  private liveBase(): number {
    const a = this.anchor;
    return a && !a.isDisposed ? this.base + this.anchorLine - a.line : this.base;
  }

  /** Fixes the marks on an absolute row that became final at view offset `start`. */
  private fixMarks(row: number, start: number, length: number): void {
    for (const mark of this.open) {
      if (mark.row !== row) continue;
      mark.fixed = start + Math.min(mark.col, length);
      this.open.delete(mark);
    }
  }

  /** Moves the rows that left the screen into the transcript, accounting for rows the emulator trimmed. */
  private sync(until = this.term.buffer.normal.baseY): void {
    const b = this.term.buffer.normal;
    this.base = this.liveBase();
    const from = Math.max(0, this.pulled - this.base);
    // One pass, one append: every row costs (a million rows of `seq`), so nothing is done twice.
    const parts: string[] = [];
    let hasRows = this.transcript.hasRows;
    let at = this.transcript.end;
    let line = b.getLine(from);
    for (let y = from; y < until; y++) {
      const next = b.getLine(y + 1);
      const wrapped = line?.isWrapped === true;
      const text = rowText(line, next?.isWrapped === true);
      const start = at + (hasRows && !wrapped ? 1 : 0);
      parts.push(start > at ? `\n${text}` : text);
      at = start + text.length;
      hasRows = true;
      if (this.open.size > 0) this.fixMarks(this.base + y, start, text.length);
      line = next;
    }
    if (parts.length > 0) this.transcript.appendRows(parts.join(''), parts.length);
    this.pulled = Math.max(this.pulled, this.base + until);
    this.anchorLine = this.anchor?.line ?? 0;
    // The anchor must outlive the next piece (which may trim up to PIECE_ROWS rows above it).
    const a = this.anchor;
    if (this.term.buffer.active.type === 'normal' && (!a || a.isDisposed || a.line <= PIECE_ROWS)) this.reanchor();
  }

  /** Puts the anchor on the cursor's row (normal screen active). */
  private reanchor(): void {
    this.base = this.liveBase();
    this.anchor?.dispose();
    this.anchor = this.term.registerMarker(0);
    this.anchorLine = this.anchor?.line ?? 0;
  }

  /** The rows of the normal screen not yet in the transcript, as text, with each row's start and length. */
  private live(): { text: string; rows: { start: number; length: number }[] } {
    this.settle();
    const b = this.term.buffer.normal;
    let text = '';
    const rows: { start: number; length: number }[] = [];
    const first = this.pulled - this.base;
    let last = b.length - 1;
    const cursorRow = b.baseY + b.cursorY;
    while (last > cursorRow && (b.getLine(last)?.translateToString(true) ?? '') === '') last--;
    for (let y = first; y <= last; y++) {
      const line = b.getLine(y);
      if ((this.transcript.hasRows || y > first) && line?.isWrapped !== true) text += '\n';
      const continued = b.getLine(y + 1)?.isWrapped === true;
      const row = rowText(line, continued, y === cursorRow ? b.cursorX : 0);
      rows.push({ start: text.length, length: row.length });
      text += row;
    }
    return { text, rows };
  }
}
