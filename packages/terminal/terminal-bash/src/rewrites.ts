/**
 * Programs redraw: less rewrites its prompt row, readline redraws the line (Ctrl-R), top and
 * `clear` home the cursor and rewrite the screen. A send's output then starts where the program
 * began rewriting, not where the cursor stood when the send began. The rows from the top of the
 * screen to the cursor are remembered at the start and compared at the end.
 */
import type { Mark, Screen } from './screen.js';

/** The screen above (and left of) the cursor when a send began. */
export interface RowShot {
  top: number;
  row: number;
  col: number;
  texts: string[];
}

/** Remembers the rows from the top of the screen to the cursor's row. */
export function shoot(view: Screen): RowShot {
  const { top, row, col } = view.cursor();
  const texts: string[] = [];
  for (let r = top; r <= row; r++) texts.push(view.liveRow(r) ?? '');
  return { top, row, col, texts };
}

/**
 * The start of the highest row rewritten since `shot` (the cursor's own row counts when what
 * stood left of the cursor changed), or null. Rows that became final are not compared.
 */
export function rewrittenFrom(view: Screen, shot: RowShot): Mark | null {
  for (let i = 0; i < shot.texts.length; i++) {
    const row = shot.top + i;
    const now = view.liveRow(row);
    if (now === null) continue;
    const before = shot.texts[i] as string;
    const changed = row === shot.row ? overwritten(before.slice(0, shot.col), now) : now !== before;
    if (changed) return view.markAt(row, 0);
  }
  return null;
}

/**
 * Whether a character that stood left of the cursor was replaced. Blanks do not count: the
 * prompt hook's fresh line (a row of blanks, then CR) may be half drawn when the send begins.
 */
function overwritten(before: string, now: string): boolean {
  for (let i = 0; i < before.length; i++) if (before[i] !== ' ' && now[i] !== before[i]) return true;
  return false;
}
