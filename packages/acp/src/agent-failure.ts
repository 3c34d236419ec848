/**
 * Why an ACP agent failed, in words a model can act on: not found, exited at start (its exit
 * code and the end of its stderr), not an ACP agent at all (its first output line is not
 * JSON-RPC), or crashed mid-turn. The agent's stderr is collected (a bounded tail) for this.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { SubprocessOutcome } from '@dsh/subprocess';

/** Bytes of an agent's stderr kept for its failure reports (its end). */
export const ACP_STDERR_TAIL_BYTES = 64 * 1024;
/** Characters of that tail a failure report shows. */
export const ACP_STDERR_SHOWN_CHARS = 2_000;
/** Characters of a first output line that is not JSON-RPC shown in the report. */
const FIRST_LINE_SHOWN_CHARS = 200;

/** The end of `text`, trimmed, within {@link ACP_STDERR_SHOWN_CHARS}. */
export function tailOf(text: string): string {
  const t = text.trim();
  return t.length > ACP_STDERR_SHOWN_CHARS ? `…${t.slice(-ACP_STDERR_SHOWN_CHARS)}` : t;
}

/** How the agent's process ended, with the end of its stderr. */
export function describeExit(outcome: SubprocessOutcome, stderr: string): string {
  if (outcome.error) {
    const why =
      outcome.error.code === 'EXECUTABLE_NOT_FOUND'
        ? 'its program was not found (check the command, or that it is on PATH)'
        : `it could not start (${outcome.error.code}: ${outcome.error.message})`;
    return why;
  }
  const how = outcome.signal ? `it was killed by ${outcome.signal}` : `it exited with code ${outcome.exitCode}`;
  const tail = tailOf(stderr);
  return tail ? `${how}; its stderr ends with:\n${tail}` : `${how} and wrote nothing on stderr`;
}

/**
 * A tap on the agent's stdout: the stream to read it from, and a promise that resolves with the
 * first complete line that is not a JSON object (an agent speaks only JSON-RPC there), while
 * `watching()` is true; it never resolves otherwise.
 */
export function watchStdout(stdout: Readable, watching: () => boolean): { stream: Readable; notAcp: Promise<string> } {
  const stream = new PassThrough();
  let pending = '';
  let report: (line: string) => void = () => undefined;
  const notAcp = new Promise<string>((resolve) => {
    report = resolve;
  });
  stdout.on('data', (chunk: Buffer) => {
    if (!watching()) return;
    pending += chunk.toString('utf8');
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line !== '' && !isJsonObject(line)) report(line.slice(0, FIRST_LINE_SHOWN_CHARS));
      nl = pending.indexOf('\n');
    }
  });
  stdout.pipe(stream);
  return { stream, notAcp };
}

function isJsonObject(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
