/**
 * The text a send returns: its own output (from where the shell accepted the input to its
 * prompt), and what was printed while no send waited (the prompts around it stripped). Counts
 * of what the transcript no longer holds are exact.
 */
import type { Mark, Screen } from './screen.js';

/** The prompt the rc file sets (`$ `, its trailing blank trimmed), before and after between-send output. */
const PROMPT_AT_START = /^\$ ?/;
const PROMPT_AT_END = /\n\$ ?$/;

/** A send's output from `from` to `end`; `accepted`: `from` is where the shell accepted the line. */
export function sendText(view: Screen, from: Mark, end: Mark, accepted: boolean): { text: string; lost: number } {
  let { text, lost } = view.text(from, Math.max(view.offset(from), view.offset(end)));
  if (accepted && text.startsWith('\n')) text = text.slice(1); // the line end after the accepted input
  const partial = lost > 0 ? text.indexOf('\n') + 1 : 0;
  if (partial > 0 && partial < text.length) {
    // What is left of a line whose start is gone reads like a value of its own: it counts as omitted.
    text = text.slice(partial);
    lost += partial;
  }
  return { text, lost };
}

/** What was printed between `from` (the last send's end) and `upTo`, without the prompts around it. */
export function earlierText(
  view: Screen,
  from: Mark | number,
  upTo: Mark,
): { earlier: string; earlierOmitted: number } {
  const { text: raw, lost } = view.text(from, upTo);
  const text = raw.replace(PROMPT_AT_START, '').replace(PROMPT_AT_END, '');
  return text.trim() === ''
    ? { earlier: '', earlierOmitted: lost }
    : { earlier: text.replace(/\s+$/, ''), earlierOmitted: lost };
}
