/**
 * How send results read to a model: the new output, then one status line that says why control
 * came back and what to do next.
 */
import type { SendResult } from '@dsh/terminal';

/** Longest output of one send shown to a model; the rest stays readable with terminal_read. */
export const SEND_OUTPUT_MAX_CHARS = 28_000;

/** The status line of a send. */
export function statusLine(id: string, r: SendResult, timeoutMs: number): string {
  const interrupted = r.cancelled ? 'interrupted; ' : '';
  switch (r.reason) {
    case 'stdin_read':
      return r.commandExitCode !== null
        ? `[${interrupted}ready at the prompt; exit code: ${r.commandExitCode}]`
        : `[${interrupted}waiting for input: a program is reading from the terminal; answer with terminal_send, or terminal_cancel it]`;
    case 'inferred_idle':
      return `[${interrupted}quiet: no output for a while and its state cannot be seen; it may still be working — terminal_read later or terminal_send more]`;
    case 'timeout':
      return `[still running after ${timeoutMs} ms; terminal_read it later, terminal_send with a longer timeout_ms, or terminal_cancel it]`;
    case 'session_exited':
      return `[the shell exited${r.commandExitCode === null ? '' : ` with code ${r.commandExitCode}`}; terminal_close ${id} and terminal_open a new one]`;
  }
}

/** The output of a send, its tail kept within the cap. */
export function capOutput(output: string): string {
  if (output.length <= SEND_OUTPUT_MAX_CHARS) return output;
  const omitted = output.length - SEND_OUTPUT_MAX_CHARS;
  return `[${omitted} earlier characters not shown; terminal_read them by offset]\n${output.slice(omitted)}`;
}
