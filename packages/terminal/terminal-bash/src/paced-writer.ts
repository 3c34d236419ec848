/**
 * Writes input to a PTY in small pieces with the event loop turning in between: one large
 * synchronous write would block on a full terminal input queue while the reader (e.g. the
 * shell, busy echoing) waits for us to read its output. After each window of input, writing
 * waits until the reader has caught up — it produced output, or it is blocked reading the
 * terminal again (so the queue is empty) — or the caller stops it.
 */

/** Characters per write: well below the kernel's 4 KiB terminal input queue. */
export const PTY_WRITE_CHUNK = 256;
/** Input written before waiting for the reader to catch up. */
export const PTY_WRITE_WINDOW = 2048;
/** How often a waiting writer looks again. */
const CATCH_UP_POLL_MS = 5;

/** Writes `text` paced by the reader; resolves when all of it is written or `stopped()` turns true. */
export async function writePaced(
  write: (chunk: string) => void,
  text: string,
  caughtUp: () => boolean,
  stopped: () => boolean,
): Promise<void> {
  const chars = [...text];
  let sinceWait = 0;
  for (let i = 0; i < chars.length && !stopped(); i += PTY_WRITE_CHUNK) {
    const chunk = chars.slice(i, i + PTY_WRITE_CHUNK).join('');
    write(chunk);
    sinceWait += chunk.length;
    if (i + PTY_WRITE_CHUNK >= chars.length) break;
    await new Promise((r) => setImmediate(r));
    if (sinceWait < PTY_WRITE_WINDOW) continue;
    while (!caughtUp() && !stopped()) await new Promise((r) => setTimeout(r, CATCH_UP_POLL_MS));
    sinceWait = 0;
  }
}
