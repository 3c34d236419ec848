/**
 * A terminal send for a tool call: the call's abort interrupts it (Ctrl-C to the foreground),
 * and while it waits, progress (elapsed time, last line of the scrollback) is reported at most
 * once a second. The scrollback is read without consuming, so the send's own delta is intact.
 */
import type { ToolContext } from '@dsh/core';
import type { SendResult, TerminalService } from '@dsh/terminal';

/** Progress reports come at most this often. */
export const SEND_PROGRESS_INTERVAL_MS = 1_000;
/** Characters of scrollback read for a progress report's last line. */
const PROGRESS_PEEK_CHARS = 512;

function lastLine(text: string): string {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (line !== '') return line;
  }
  return '';
}

/** Sends `input` to the owner's terminal `id` on behalf of a tool call. */
export async function sendWatched(
  terminals: TerminalService,
  context: ToolContext,
  id: string,
  input: { text: string; timeoutMs: number; submit?: boolean; keys?: string[]; paste?: boolean },
): Promise<SendResult> {
  const { owner, signal, progress } = context;
  const sending = terminals.send(owner, id, input);
  const onAbort = (): void => void terminals.cancel(owner, id).catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  const started = Date.now();
  const timer = progress
    ? setInterval(() => {
        let line = '';
        try {
          line = lastLine(terminals.scrollback(owner, id, { limit: PROGRESS_PEEK_CHARS }).text);
        } catch {
          // the terminal closed under us: the send settles on its own
        }
        progress({ elapsedMs: Date.now() - started, lastLine: line });
      }, SEND_PROGRESS_INTERVAL_MS)
    : undefined;
  try {
    if (signal?.aborted) onAbort();
    return await sending;
  } finally {
    clearInterval(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
