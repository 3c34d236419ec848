/**
 * How terminal results read to a model: what was printed since the last send (marked), the new
 * output or the screen, then one status line that says why control came back and what to do
 * next. Every count of what is not shown is exact, and notices are never cut off.
 */
import type { ScreenView, SendResult } from '@dsh/terminal';

/** Longest output of one send shown to a model; the rest stays readable with terminal_read. */
export const SEND_OUTPUT_MAX_CHARS = 28_000;
/** Longest between-send output shown at the start of a result (its end is kept). */
export const EARLIER_MAX_CHARS = 4_000;

/** The status line of a send. */
export function statusLine(id: string, r: SendResult, timeoutMs: number, waitOnly = false): string {
  const interrupted = r.cancelled ? 'interrupted; ' : '';
  switch (r.reason) {
    case 'stdin_read':
      if (r.inputTo !== null && r.programExitCode !== null && r.commandExitCode === null && r.programLine !== null) {
        return `[${r.inputTo} read your input and has exited; the command line that ran it (${r.programLine}) finished with exit code ${r.programExitCode}, which is its last command's status, not necessarily ${r.inputTo}'s; the shell is at its prompt and ran none of your input as a command]`;
      }
      if (r.inputTo !== null && r.programExitCode !== null && r.commandExitCode === null) {
        return `[${r.inputTo} read your input and has exited (exit code ${r.programExitCode}); the shell is at its prompt and ran none of your input as a command]`;
      }
      if (r.inputTo !== null && r.commandExitCode !== null && !r.cancelled) {
        return `[${interrupted}ready at the prompt; the shell read a line after ${r.inputTo} ended: exit code: ${r.commandExitCode}]`;
      }
      if (r.commandExitCode !== null) return `[${interrupted}ready at the prompt; exit code: ${r.commandExitCode}]`;
      if (r.atPrompt) return `[${interrupted}ready at the prompt; no command ran]`;
      if (r.screen) {
        return `[${interrupted}waiting for input: a full-screen program shows the screen above; type with terminal_send (keys for Escape, arrows, C-x), or terminal_cancel it]`;
      }
      if (r.commandLine === 'incomplete') {
        return `[${interrupted}the shell waits for the rest of the command (an open quote or bracket, or a trailing backslash); terminal_send the rest, or terminal_cancel to drop it]`;
      }
      if (r.commandLine === 'unsubmitted') {
        return `[${interrupted}typed on the command line, not run (no Enter); terminal_send more, keys ["Enter"] to run it, or terminal_cancel to drop it]`;
      }
      return `[${interrupted}waiting for input: a program is reading from the terminal; answer with terminal_send, or terminal_cancel it]`;
    case 'inferred_idle':
      if (waitOnly) {
        return `[it printed the above and paused; it still runs: terminal_send with wait_ms to wait for more, or terminal_cancel it]`;
      }
      return `[${interrupted}quiet: no output for a while and its state cannot be seen; it may still be working — terminal_read later or terminal_send more]`;
    case 'timeout':
      if (r.cancelled) {
        return `[Ctrl-C was sent, but it still runs after ${timeoutMs} ms (it may ignore Ctrl-C); terminal_send keys ["C-c"] again, or terminal_close ${id} to end everything in it]`;
      }
      return `[still running after ${timeoutMs} ms; terminal_read it later, or terminal_cancel it]`;
    case 'session_exited': {
      const code = r.commandExitCode === null ? '' : ` with code ${r.commandExitCode}`;
      const how = r.exitSignal ? ` (killed by ${r.exitSignal})` : code;
      return `[the shell exited${how}; terminal_close ${id} and terminal_open a new one]`;
    }
  }
}

/** A line repeated this many times in a row or more is shown once with a count (a flood reads cheaply). */
export const REPEAT_COLLAPSE_MIN = 4;

/**
 * `text` with each run of REPEAT_COLLAPSE_MIN or more identical lines shown once, followed by
 * `[the line above N more times]`: nothing is lost (the count is exact), and `yes` costs a model
 * a few lines instead of its budget.
 */
export function collapseRepeats(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] as string;
    let j = i + 1;
    // The last piece (after the final line end) is not a line of its own: never part of a run.
    while (j < lines.length - 1 && lines[j] === line) j++;
    const run = j - i;
    if (run >= REPEAT_COLLAPSE_MIN && i < lines.length - 1) {
      out.push(line, `[the line above ${run - 1} more times]`);
    } else for (let k = i; k < j; k++) out.push(lines[k] as string);
    i = j;
  }
  return out.join('\n');
}

/** Where `text` is cut to keep its tail within `max` characters: on a line boundary (0: no cut). */
export function tailCut(text: string, max: number): number {
  if (text.length <= max) return 0;
  const at = text.length - max;
  const nextLine = text.indexOf('\n', at - 1);
  // A cut mid-line would show a fragment that reads like a value of its own: start at the next line.
  return nextLine >= 0 && nextLine + 1 < text.length ? nextLine + 1 : at;
}

/**
 * What is not shown of a text, told exactly: `notShown` characters before what is shown, of which
 * the first `gone` are no longer kept anywhere; the rest start at scrollback offset `from` (when known).
 */
function notShownNote(what: string, notShown: number, gone: number, from: number | null): string {
  const kept = notShown - gone;
  const parts = [`${notShown} earlier characters of ${what} not shown`];
  if (kept > 0 && from !== null) parts.push(`terminal_read offset ${from} reads the ${kept} still kept`);
  if (gone > 0) {
    parts.push(
      `${kept > 0 ? 'the first ' : ''}${gone} are no longer kept (past the scrollback) and no complete copy exists: for long output use the bash tool (it keeps a full copy) or redirect it to a file`,
    );
  }
  return `[${parts.join('; ')}]`;
}

/** The facts of a result that decide how its output is shown. */
type Shown = Pick<SendResult, 'output' | 'omitted' | 'omittedGone' | 'outputOffset' | 'screen' | 'cursor'>;

/** The output of a send as shown (the screen, or its tail within the cap), and the exact count left out. */
export function shownOutput(r: Shown): { text: string; notShown: number } {
  if (r.screen) return { text: `[screen${cursorNote(r.cursor)}]\n${r.output}`, notShown: 0 };
  const cut = tailCut(r.output, SEND_OUTPUT_MAX_CHARS);
  const notShown = r.omitted + cut;
  const shown = collapseRepeats(r.output.slice(cut));
  if (notShown === 0) return { text: shown, notShown };
  const from = r.outputOffset === null ? null : r.outputOffset - (r.omitted - r.omittedGone);
  return { text: `${notShownNote('this output', notShown, r.omittedGone, from)}\n${shown}`, notShown };
}

/** The output of a send (or the screen), its tail kept within the cap. */
export function capOutput(r: Shown): string {
  return shownOutput(r).text;
}

/**
 * Between-send output's tail within the cap, repeated lines collapsed; what it left out is told
 * (its start gone from the transcript, or cut here: then read from scrollback offset `from`).
 */
function earlierTail(text: string, gone: number, from: number | null): string {
  const cut = tailCut(text, EARLIER_MAX_CHARS);
  const notShown = gone + cut;
  const shown = collapseRepeats(text.slice(cut));
  return notShown > 0 ? `${notShownNote('it', notShown, gone, from)}\n${shown}` : shown;
}

/** The whole text of a send's result. */
export function renderSend(id: string, r: SendResult, timeoutMs: number, waitOnly = false): string {
  const parts: string[] = [];
  const printed = r.earlier !== '' || r.earlierOmitted > 0;
  if (printed || r.previousExitCode !== null) {
    const lines = ['[printed since your last send:]'];
    if (printed) lines.push(earlierTail(r.earlier, r.earlierOmitted, r.earlierOffset));
    if (r.previousExitCode !== null) {
      lines.push(`[the command your earlier send left running has finished; exit code: ${r.previousExitCode}]`);
    }
    parts.push(`${lines.join('\n')}\n[this send:]`);
  }
  const out = capOutput(r).replace(/\n$/, '');
  if (out !== '') parts.push(out); // a program's last line end alone (vim's on exit) is no output
  if (r.inputTo !== null && r.programExitCode === null && !r.atPrompt && r.reason !== 'session_exited') {
    parts.push(`[your input went to ${r.inputTo}, which holds the terminal, not to the shell's prompt]`);
  }
  if (r.linePrefix !== null) {
    parts.push(
      `[the command line already held ${JSON.stringify(r.linePrefix)} (typed earlier without Enter): the shell ran it with your input as one line]`,
    );
  }
  if (r.knownPrompt) {
    const keys = JSON.stringify(r.knownPrompt.keys);
    parts.push(`[the screen shows ${r.knownPrompt.prompt}: terminal_send keys ${keys} to continue past it]`);
  }
  parts.push(statusLine(id, r, timeoutMs, waitOnly));
  return parts.join('\n');
}

/** Where the cursor is, and what the marks mean, for a screen's label. */
function cursorNote(cursor: { row: number; col: number } | null | undefined): string {
  const at = cursor ? `; cursor at row ${cursor.row}, column ${cursor.col}` : '';
  return `${at}; »…« marks highlighted text`;
}

/** A screen as a model reads it. */
export function renderScreen(view: ScreenView): string {
  const kind = view.alternate ? 'a full-screen program' : 'the shell';
  return `[screen ${view.cols}×${view.rows}, ${kind}${view.marked === undefined ? '' : cursorNote(view.cursor)}]\n${view.marked ?? view.text}`;
}
