/**
 * The texts of a send that settled: its output (from where the shell accepted its line, or
 * where a program began rewriting the screen, to its prompt), or the whole screen while a
 * full-screen program shows; what was printed before it while no send waited; and where it
 * ended (the start of what the next send is told as `earlier`). The send's marks are forgotten.
 */
import type { PlacedMarker } from './prompt-watch.js';
import type { ActiveSend } from './readiness.js';
import { rewrittenFrom } from './rewrites.js';
import type { Mark, Screen } from './screen.js';
import { earlierText, sendText } from './send-text.js';

/** What a settled send returns besides its exit facts. */
export interface SettledTexts {
  /** Where this send's output ended: later output was printed while no send waited. */
  end: Mark;
  earlier: ActiveSend['earlier'];
  /** The output, or the full screen (`screen`) of a program on the alternate screen. */
  text: string;
  screen: boolean;
  /** Characters of the output before `text` (exact). */
  lost: number;
  /** Of `lost`, those the transcript no longer holds. */
  gone: number;
  /** Where `text` begins in the scrollback (null for a screen). */
  offset: number | null;
  /** With `screen`: the cursor (from 1), else null. */
  cursor: { row: number; col: number } | null;
}

/**
 * Reads the texts of `a`, settled at prompt `m` (or without one); `lastEnd` is where the
 * previous send ended. `showScreen`: a full-screen program's screen stands for the output.
 */
export function settledTexts(
  view: Screen,
  a: ActiveSend,
  m: PlacedMarker | null,
  lastEnd: Mark | number,
  showScreen: boolean,
): SettledTexts {
  // Before the line editor read (an unsubmitted line), output from the send's start would repeat `earlier`.
  let from = a.acceptedAt ?? a.readyAt ?? a.start;
  const redrawn = view.alternate ? null : rewrittenFrom(view, a.shot);
  if (redrawn && view.offset(redrawn) < view.offset(from)) from = redrawn;
  else if (redrawn) view.forget(redrawn);
  // Without its prompt, the send shows the whole row the cursor is on (the rest of a match, a hint),
  // as it is now: what is printed on that row later is the next result's (a mark at the row's end
  // would take it too, and the next send would start past it).
  const row = view.cursor().row;
  const end: Mark = m ? m.at : view.markAt(row, view.liveRow(row)?.length ?? Number.POSITIVE_INFINITY);
  // Output that came after the send began but before the shell read its line belongs to `earlier`.
  const earlier = a.readyAt ? { ...a.earlier, ...earlierText(view, lastEnd, a.readyAt) } : a.earlier;
  if (typeof lastEnd !== 'number') view.forget(lastEnd);
  for (const mark of [a.start, a.acceptedAt, a.readyAt]) if (mark && mark !== from) view.forget(mark);
  if (view.alternate && showScreen) {
    view.forget(from);
    const shot = view.snapshot();
    return { end, earlier, text: shot.marked, screen: true, lost: 0, gone: 0, offset: null, cursor: shot.cursor };
  }
  const { text, lost, gone, offset } = sendText(view, from, end, a.acceptedAt !== null);
  view.forget(from);
  return { end, earlier, text, screen: false, lost, gone, offset, cursor: null };
}
