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
 * `text` cut so that no piece moves more than PIECE_ROWS rows: by line feeds when nothing else
 * can move the cursor down (no ESC, VT or FF), else by characters (each could be one).
 */
export function pieces(text: string): string[] {
  if (text.length <= PIECE_ROWS) return [text];
  const out: string[] = [];
  if (text.includes('\x1b') || text.includes('\v') || text.includes('\f')) {
    for (let at = 0; at < text.length; at += PIECE_ROWS) out.push(text.slice(at, at + PIECE_ROWS));
    return out;
  }
  let start = 0;
  let rows = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    if (++rows < PIECE_ROWS) continue;
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
    rows = 0;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}
