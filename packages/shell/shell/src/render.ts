/**
 * `renderShellResult`: the model-visible (and persisted) text of a result, with the exit
 * markers of {@link ./markers.ts}. `parseShellResult` recovers every machine fact from it.
 */
import { escapeBody, oneLine, STDERR_LINE } from './markers.js';
import type { CapturedText, SandboxFacts, StartFailure } from './types.js';

/** The facts a rendering needs; both foreground results and background outcomes have them. */
export interface RenderableResult {
  exitCode: number | null;
  signal: string | null;
  timedOut?: boolean;
  aborted?: boolean;
  timeoutMs?: number;
  stdout: CapturedText;
  stderr: CapturedText;
  sandbox: SandboxFacts | null;
  startError: StartFailure | null;
}

/** Options of {@link renderShellResult}. */
export interface RenderOptions {
  /**
   * Longest body (stdout + stderr section) shown, in characters; longer bodies keep their tail
   * and get a `[output truncated: showing last …]` marker.
   * @default no cap
   */
  maxChars?: number;
  /** Extra lines for the reader, rendered as `[note: …]` markers. @default [] */
  notes?: readonly string[];
}

function keepTail(text: string, maxChars: number): string {
  let cut = text.slice(text.length - maxChars);
  const first = cut.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) cut = cut.slice(1); // never start on half a surrogate pair
  return cut;
}

function truncationLine(stream: 'stdout' | 'stderr', captured: CapturedText): string | null {
  if (!captured.truncated) return null;
  const kept = Buffer.byteLength(captured.text);
  const where = captured.spillPath ? `full output: ${oneLine(captured.spillPath)}` : 'no complete copy';
  return `[output truncated: ${stream} kept last ${kept} of ${captured.totalBytes} bytes; ${where}]`;
}

/** Joins stdout and the `[stderr]` section as the grammar requires, escaping marker-like lines. */
function renderBody(stdout: string, stderr: string): string {
  const out = escapeBody(stdout);
  if (stderr === '') return out;
  return `${out === '' ? '' : `${out}\n`}${STDERR_LINE}\n${escapeBody(stderr)}`;
}

/** Renders a result as text ending in its markers (see the grammar in markers.ts). */
export function renderShellResult(result: RenderableResult, options: RenderOptions = {}): string {
  let stdout = result.stdout.text;
  let stderr = result.stderr.text;
  const trailer: string[] = (options.notes ?? []).map((n) => `[note: ${oneLine(n)}]`);
  for (const line of [truncationLine('stdout', result.stdout), truncationLine('stderr', result.stderr)]) {
    if (line) trailer.push(line);
  }
  const max = options.maxChars;
  const rawLength = stdout.length + (stderr === '' ? 0 : stderr.length + STDERR_LINE.length + 2);
  if (max !== undefined && rawLength > max) {
    // Keep the tail of the combined body: stderr first (errors come last), then stdout's tail.
    stderr = stderr.length > max ? keepTail(stderr, max) : stderr;
    const left = Math.max(0, max - (stderr === '' ? 0 : stderr.length + STDERR_LINE.length + 2));
    stdout = stdout.length > left ? keepTail(stdout, left) : stdout;
    const shown = stdout.length + (stderr === '' ? 0 : stderr.length + STDERR_LINE.length + 2);
    trailer.push(`[output truncated: showing last ${shown} of ${rawLength} characters]`);
  }
  if (result.timedOut) trailer.push(`[timed out after ${result.timeoutMs ?? 0} ms]`);
  if (result.aborted) trailer.push('[aborted]');
  if (result.sandbox?.denied && result.sandbox.denial) trailer.push(`[sandbox denied: ${result.sandbox.denial}]`);
  if (result.startError) {
    trailer.push(`[failed to start: ${result.startError.code}: ${oneLine(result.startError.message)}]`);
  }
  if (result.exitCode !== null) trailer.push(`[exit code: ${result.exitCode}]`);
  else if (result.signal !== null) trailer.push(`[killed by signal: ${result.signal}]`);
  else trailer.push('[no exit status]');
  const body = renderBody(stdout, stderr);
  return body === '' ? trailer.join('\n') : `${body}\n${trailer.join('\n')}`;
}
