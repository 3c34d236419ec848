/**
 * A flood of plain lines (`seq`, a log, a build) need not pass through the emulator row by row:
 * printable ASCII lines ended by CR LF, written from the start of the bottom row of a normal
 * screen with default modes, only scroll. Their rows can go straight into the transcript with
 * the text the emulator would have given them; only the last lines, enough to fill the screen
 * and a watcher's scrollback, are parsed, into an emulator emptied above the cursor. The result
 * is the same text, screen and scrollback, also for a screen made up to that scrollback taller;
 * a screen made taller still shows blank rows below the cursor where a full parse would pull
 * back more of the flood (the transcript has them), never rows from before it.
 */
import type { XtermTerminal } from './xterm-loader.js';

/** Plain output is held this long before it is parsed, so a flood's chunks (a PTY reads about 4 KiB) pile up into one skip. */
export const PLAIN_HOLD_MS = 4;

/** Plain output held past this many characters is handled at once (bounds the hold's memory and latency). */
export const PLAIN_HOLD_MAX_CHARS = 256 * 1024;

/**
 * True when `text`, following `before` (the end of what is held), is printable ASCII lines ended
 * by CR LF: no escape, tab, bell, lone CR or lone LF. A CR LF may be split between two reads (a
 * PTY reads about 4 KiB), so the text may end in CR and start with the LF of the CR before it.
 */
export function isPlain(text: string, before = ''): boolean {
  const afterCr = before.endsWith('\r');
  if (afterCr !== text.startsWith('\n')) return false;
  const body = afterCr ? text.slice(1) : text;
  return !/[^\x20-\x7e\r\n]|\r(?!\n|$)|(?<!\r)\n/.test(body);
}

/** Plain text cut for a skip: the first line (parsed), the lines skipped (CR LF between them, none after the last), and the tail (parsed). */
export interface PlainCut {
  head: string;
  skipped: string;
  tail: string;
}

/**
 * Cuts plain text so that its first `headLines` line ends are parsed before the skipped lines
 * (enough to bring the cursor to the bottom row) and at least `keepLines` whole lines after
 * them, or returns null when there is too little to skip.
 */
export function cutPlain(text: string, headLines: number, keepLines: number): PlainCut | null {
  let first = -2;
  for (let n = 0; n < headLines; n++) {
    first = text.indexOf('\r\n', first + 2);
    if (first === -1) return null;
  }
  // The tail starts keepLines line ends before the last one, counted from the end.
  let tailAt = text.length;
  let ends = 0;
  for (let at = text.lastIndexOf('\r\n'); at > first; at = text.lastIndexOf('\r\n', at - 1)) {
    if (++ends > keepLines) {
      tailAt = at + 2;
      break;
    }
  }
  if (tailAt === text.length) return null;
  return { head: text.slice(0, first + 2), skipped: text.slice(first + 2, tailAt - 2), tail: text.slice(tailAt) };
}

/**
 * The transcript's text and row count for lines written from column 0 of fresh rows, as the
 * emulator's rows would give them: a line wider than the screen wraps (its full rows keep
 * their blanks), the last row of each line is trimmed, and each line after the first (or
 * after rows already kept) starts with a line break.
 */
export function skippedRows(skipped: string, cols: number, hasRows: boolean): { text: string; rows: number } {
  const lead = hasRows ? '\n' : '';
  // The usual flood: no line wraps and none ends in a blank, so each row is its line as written.
  if (!/ \r\n| $/.test(skipped) && !longerThan(cols).test(skipped)) {
    const text = skipped.replaceAll('\r\n', '\n');
    return { text: lead + text, rows: skipped.length - text.length + 1 };
  }
  let rows = 0;
  const parts: string[] = [];
  for (const line of skipped.split('\r\n')) {
    if (line.length <= cols) {
      parts.push(line.trimEnd());
      rows += 1;
      continue;
    }
    const count = Math.ceil(line.length / cols);
    const last = (count - 1) * cols;
    parts.push(line.slice(0, last) + line.slice(last).trimEnd());
    rows += count;
  }
  return { text: lead + parts.join('\n'), rows };
}

let longRule: { cols: number; rule: RegExp } | undefined;
/** A pattern that finds a line longer than `cols` (kept for the last width asked). */
function longerThan(cols: number): RegExp {
  if (longRule?.cols !== cols) longRule = { cols, rule: new RegExp(`[^\\r\\n]{${cols + 1}}`) };
  return longRule.rule;
}

/** The emulator's internals a skip depends on (xterm 6); any one missing means no skip. */
interface XtermInternals {
  _core?: {
    buffer?: { scrollTop?: unknown; scrollBottom?: unknown };
    coreService?: { decPrivateModes?: { wraparound?: unknown }; modes?: { insertMode?: unknown } };
    _inputHandler?: { _charsetService?: { charset?: unknown } };
  };
}

/**
 * True when the next plain lines would only scroll: the normal screen is active, the cursor is
 * at the start of its bottom row, the scroll region is the whole screen, lines wrap, nothing is
 * inserted, and no other character set maps ASCII.
 */
export function onlyScrolls(term: XtermTerminal): boolean {
  const b = term.buffer.active;
  if (b.type !== 'normal' || b.cursorX !== 0 || b.cursorY !== term.rows - 1) return false;
  const core = (term as unknown as XtermInternals)._core;
  const buffer = core?.buffer;
  const modes = core?.coreService;
  const charsets = core?._inputHandler?._charsetService;
  if (!buffer || !modes?.decPrivateModes || !modes.modes || !charsets) return false;
  return (
    buffer.scrollTop === 0 &&
    buffer.scrollBottom === term.rows - 1 &&
    modes.decPrivateModes.wraparound === true &&
    modes.modes.insertMode === false &&
    charsets.charset === undefined
  );
}

/** Plain output held for a moment, then handed on in one piece. */
export class PlainHold {
  private text = '';
  private timer: NodeJS.Timeout | undefined;

  /** `release` gets what was held, once per flush, never ''. */
  constructor(private readonly release: (text: string) => void) {}

  /** Characters held. */
  get size(): number {
    return this.text.length;
  }

  /** True when `text` is plain after what is held (see isPlain). */
  takes(text: string): boolean {
    return isPlain(text, this.text);
  }

  /** Holds text that `takes` accepted. */
  add(text: string): void {
    this.text += text;
    if (this.text.length >= PLAIN_HOLD_MAX_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), PLAIN_HOLD_MS);
  }

  /** Hands on what is held now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.text;
    this.text = '';
    if (text !== '') this.release(text);
  }

  /** Drops what is held (the screen is gone). */
  dispose(): void {
    this.text = '';
    this.flush(); // stops the timer; nothing is left to hand on
  }
}
