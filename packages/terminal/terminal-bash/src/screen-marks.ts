/**
 * What the screen shows beyond its characters, for a model: the runs of cells a program set
 * apart — reverse video (less's search match, a status line, a visual selection) and a rare
 * background colour (a menu's selected row, htop's cursor line, a focused button) — marked as
 * `»…«` in the text. A background most of the screen shares (a dialog's body, a full-screen
 * program's own colour) is not a highlight.
 */

/**
 * A background is a highlight when fewer than this share of the screen's cells carry it: a
 * selected row or a focused button, not a dialog's body (a 40×15 dialog is 12 % of 120×40).
 */
export const RARE_BACKGROUND_SHARE = 0.05;
/** The marks around a highlighted run (documented in the README). */
export const HIGHLIGHT_OPEN = '»';
export const HIGHLIGHT_CLOSE = '«';

/** The part of xterm's cell API the marks read. */
interface Cell {
  getChars(): string;
  getWidth(): number;
  isInverse(): number;
  isBgDefault(): boolean;
  getBgColor(): number;
  getBgColorMode(): number;
}

/** The part of xterm's buffer line API the marks read. */
export interface Line {
  length: number;
  getCell(x: number): Cell | undefined;
}

/** A cell's style key: reverse video, a background colour, or none (''). */
function styleOf(cell: Cell): string {
  if (cell.isInverse()) return 'inverse';
  return cell.isBgDefault() ? '' : `bg:${cell.getBgColorMode()}:${cell.getBgColor()}`;
}

/** The screen's rows as text with highlighted runs marked (trailing blanks trimmed, as the plain text). */
export function markedRows(lines: readonly (Line | undefined)[], cols: number): string[] {
  const styles: string[][] = [];
  const chars: string[][] = [];
  const counts = new Map<string, number>();
  for (const line of lines) {
    const rowStyles: string[] = [];
    const rowChars: string[] = [];
    for (let x = 0; x < cols && line; x++) {
      const cell = line.getCell(x);
      if (!cell || cell.getWidth() === 0) continue; // the second half of a wide character
      const style = styleOf(cell);
      rowStyles.push(style);
      rowChars.push(cell.getChars() || ' ');
      counts.set(style, (counts.get(style) ?? 0) + 1);
    }
    styles.push(rowStyles);
    chars.push(rowChars);
  }
  const total = Math.max(1, lines.length * cols);
  const highlight = (style: string): boolean =>
    style === 'inverse' || (style !== '' && (counts.get(style) ?? 0) / total < RARE_BACKGROUND_SHARE);
  return chars.map((row, y) => {
    const rowStyles = styles[y] as string[];
    // Trailing blanks are trimmed, as in the plain text; a run of blanks alone (a shadow) is no highlight.
    let end = row.length;
    while (end > 0 && row[end - 1] === ' ') end--;
    let out = '';
    for (let x = 0; x < end; ) {
      const on = highlight(rowStyles[x] as string);
      let stop = x + 1;
      while (stop < end && highlight(rowStyles[stop] as string) === on) stop++;
      const run = row.slice(x, stop).join('');
      out += on && run.trim() !== '' ? `${HIGHLIGHT_OPEN}${run}${HIGHLIGHT_CLOSE}` : run;
      x = stop;
    }
    return out;
  });
}
