/**
 * Rows of the emulator as text, and output cut into pieces the emulator can take without
 * dropping a row before it is read.
 */
import type { IBufferLine } from '@xterm/headless';

/** Output is parsed in pieces that move at most this many rows (< the emulator's scrollback, so no row is dropped before it is read). */
export const PIECE_ROWS = 1_500;

/**
 * A row's text; trailing blanks trimmed unless the next row continues it (a wrapped line). On
 * the cursor's row, blanks the program wrote before the cursor stay (a prompt's `name? `).
 */
export function rowText(line: IBufferLine | undefined, continued: boolean, cursorX = 0): string {
  if (!line) return '';
  // A wrapped row keeps the blanks the program wrote; cells it skipped (a wide character that
  // did not fit in the last column) are not text.
  if (continued) return line.translateToString(true);
  const written = line.translateToString(true);
  const trimmed = written.trimEnd();
  return cursorX > trimmed.length ? written.slice(0, Math.min(cursorX, written.length)) : trimmed;
}

/**
 * `text` cut so that no piece moves more than PIECE_ROWS rows on a screen `cols` wide: by lines
 * when nothing but line feeds and wrapping can move the cursor down (no ESC, VT, FF, or the C1
 * IND and NEL), counting the rows a long line wraps into, else by characters (each could be one).
 */
export function pieces(text: string, cols: number): string[] {
  if (text.length <= PIECE_ROWS) return [text];
  const out: string[] = [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls that move the cursor down
  if (/[\x1b\v\f\x84\x85]/.test(text)) {
    for (let at = 0; at < text.length; at += PIECE_ROWS) out.push(text.slice(at, at + PIECE_ROWS));
    return out;
  }
  const width = Math.max(1, cols);
  /** A line longer than this is cut by characters: each part wraps into fewer than PIECE_ROWS rows. */
  const step = (PIECE_ROWS - 1) * width;
  let start = 0;
  let rows = 0;
  for (let from = 0; from < text.length; ) {
    const nl = text.indexOf('\n', from);
    const end = nl === -1 ? text.length : nl + 1;
    // At most one row per `width` characters it wraps over, and one for its line feed.
    const lineRows = 1 + Math.floor((end - from) / width);
    if (rows > 0 && rows + lineRows > PIECE_ROWS) {
      out.push(text.slice(start, from));
      start = from;
      rows = 0;
    }
    if (lineRows > PIECE_ROWS) {
      for (; end - start > step; start += step) out.push(text.slice(start, start + step));
      rows = 1 + Math.floor((end - start) / width);
    } else rows += lineRows;
    from = end;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}
