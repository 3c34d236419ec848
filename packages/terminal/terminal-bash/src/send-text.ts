/**
 * The text a send returns: its own output (from where the shell accepted the input — or where a
 * program began rewriting the screen — to its prompt), and what was printed while no send
 * waited (the prompts around it stripped). Counts of what the transcript no longer holds are
 * exact.
 */
import type { SendResult } from '@dsh/terminal';
import type { Mark, Screen } from './screen.js';

/** The prompt the rc file sets (`$ `, its trailing blank trimmed), before and after between-send output. */
const PROMPT_AT_START = /^\$ ?/;
const PROMPT_AT_END = /\n\$ ?$/;

/** When the start of the text is gone, what is left of its first line reads like a value of its own: it counts as omitted. */
function dropPartialLine(text: string, lost: number): { text: string; lost: number } {
  const partial = lost > 0 ? text.indexOf('\n') + 1 : 0;
  return partial > 0 && partial < text.length ? { text: text.slice(partial), lost: lost + partial } : { text, lost };
}

/**
 * A send's output from `from` to `end`; `accepted`: `from` is where the shell accepted the line.
 * `lost` counts the output's characters before `text` (exact), `gone` those of them no longer
 * kept anywhere, `offset` is where `text` begins in the scrollback.
 */
export function sendText(
  view: Screen,
  from: Mark,
  end: Mark,
  accepted: boolean,
): { text: string; lost: number; gone: number; offset: number } {
  const start = view.offset(from);
  const got = view.text(from, Math.max(start, view.offset(end)));
  const echoEnd = accepted && got.lost === 0 && got.text.startsWith('\n') ? 1 : 0; // the line end after the accepted input
  const cut = dropPartialLine(got.text.slice(echoEnd), got.lost);
  return { text: cut.text, lost: cut.lost, gone: got.lost, offset: start + got.lost + echoEnd + cut.lost - got.lost };
}

/** What was printed between `from` (the last send's end) and `upTo`, without the prompts around it. */
export function earlierText(
  view: Screen,
  from: Mark | number,
  upTo: Mark,
): { earlier: string; earlierOmitted: number; earlierOffset: number | null } {
  const start = typeof from === 'number' ? from : view.offset(from);
  const got = view.text(from, upTo);
  const { text: raw, lost } = dropPartialLine(got.text, got.lost);
  const prompt = PROMPT_AT_START.exec(raw)?.[0].length ?? 0;
  const text = raw.slice(prompt).replace(PROMPT_AT_END, '');
  if (text.trim() === '') return { earlier: '', earlierOmitted: lost, earlierOffset: null };
  return { earlier: text.replace(/\s+$/, ''), earlierOmitted: lost, earlierOffset: start + lost + prompt };
}

/**
 * `earlier` as the scrollback holds it now, `keptFrom` its oldest offset: what left it since the
 * text was taken (output printed later in the same result pushed it out) counts as no longer
 * kept, so a page offered still reads what it promises. The cut falls on a line's start (the
 * scrollback keeps whole lines).
 */
export function stillKept<T extends { earlier: string; earlierOmitted: number; earlierOffset: number | null }>(
  e: T,
  keptFrom: number,
): T {
  if (e.earlierOffset === null || e.earlierOffset >= keptFrom) return e;
  const gone = Math.min(keptFrom - e.earlierOffset, e.earlier.length);
  const rest = e.earlier.slice(gone);
  return rest === ''
    ? { ...e, earlier: '', earlierOmitted: e.earlierOmitted + gone, earlierOffset: null }
    : { ...e, earlier: rest, earlierOmitted: e.earlierOmitted + gone, earlierOffset: e.earlierOffset + gone };
}

/** The facts of a result besides its core. */
export type ResultExtras = Partial<
  Pick<
    SendResult,
    | 'screen'
    | 'omitted'
    | 'earlier'
    | 'earlierOmitted'
    | 'earlierOffset'
    | 'atPrompt'
    | 'commandLine'
    | 'previousExitCode'
    | 'inputTo'
    | 'programExitCode'
    | 'programLine'
    | 'linePrefix'
    | 'knownPrompt'
    | 'omittedGone'
    | 'cursor'
    | 'outputOffset'
  >
>;

/** A whole result from its core facts and extras (the rest at their defaults). */
export function sendResult(
  core: Pick<SendResult, 'reason' | 'output' | 'state' | 'commandExitCode' | 'cancelled' | 'exitSignal'>,
  extra: ResultExtras,
): SendResult {
  return {
    screen: false,
    omitted: 0,
    earlier: '',
    earlierOmitted: 0,
    earlierOffset: null,
    atPrompt: false,
    commandLine: null,
    previousExitCode: null,
    inputTo: null,
    programExitCode: null,
    programLine: null,
    linePrefix: null,
    knownPrompt: null,
    omittedGone: 0,
    cursor: null,
    outputOffset: null,
    ...extra,
    ...core,
  };
}
