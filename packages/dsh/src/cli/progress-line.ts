/**
 * The progress line of `dsh run`: while a command runs longer than a second and stderr is a
 * terminal, one redrawn line on stderr shows the elapsed time and the last output line.
 * Nothing is written when stderr is not a terminal.
 */
import { type ProgressReport, printable } from '@dsh/core';

/** Longest last-line excerpt shown (the rest of the terminal row stays free). */
const LINE_MAX_CHARS = 100;
/** Erase the current terminal line and return to its start. */
const CLEAR = '\r\x1b[2K';

/** A progress line on `stream`, or null when the stream is not a terminal. */
export function progressLine(stream: NodeJS.WriteStream): { report(r: ProgressReport): void; clear(): void } | null {
  if (!stream.isTTY) return null;
  let shown = false;
  return {
    report(r) {
      const line = printable(r.lastLine).slice(0, LINE_MAX_CHARS);
      stream.write(`${CLEAR}[dsh] running ${Math.round(r.elapsedMs / 1000)} s${line ? ` · ${line}` : ''}`);
      shown = true;
    },
    clear() {
      if (shown) stream.write(CLEAR);
      shown = false;
    },
  };
}
