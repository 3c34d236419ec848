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
  timeoutMs?: number | null;
  stdout: CapturedText;
  stderr: CapturedText;
  sandbox: SandboxFacts | null;
  startError: StartFailure | null;
  /** Processes left running that were ended when it returned. @default 0 */
  leftover?: number;
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

/** The last `maxChars` characters of `text`, never starting on half a surrogate pair. */
export function keepTail(text: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  let cut = text.slice(text.length - maxChars);
  const first = cut.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) cut = cut.slice(1); // never start on half a surrogate pair
  return cut;
}

function truncationLine(stream: 'stdout' | 'stderr', captured: CapturedText): string | null {
  if (!captured.truncated) return null;
  const kept = captured.keptBytes ?? Buffer.byteLength(captured.text);
  const where = captured.spillPath ? `full output: ${oneLine(captured.spillPath)}` : 'no complete copy';
  return `[output truncated: ${stream} kept last ${kept} of ${captured.totalBytes} bytes; ${where}]`;
}

/**
 * The tail of `text` within `maxChars`, starting on a line boundary: a cut that would start
 * mid-line drops the rest of that line. A text whose kept part holds no line boundary at all (one
 * long line) is cut mid-line; the display-truncated marker then says so.
 */
export function keepTailLines(text: string, maxChars: number): string {
  const tail = keepTail(text, maxChars);
  if (tail.length === text.length || text[text.length - tail.length - 1] === '\n') return tail;
  const nl = tail.indexOf('\n');
  return nl >= 0 && nl < tail.length - 1 ? tail.slice(nl + 1) : tail;
}

/** Joins stdout and the `[stderr]` section as the grammar requires, escaping marker-like lines. */
function renderBody(stdout: string, stderr: string): string {
  const out = escapeBody(stdout);
  if (stderr === '') return out;
  return `${out === '' ? '' : `${out}\n`}${STDERR_LINE}\n${escapeBody(stderr)}`;
}

/** What the display cap leaves of a body: the texts shown and which streams lost their head. */
export interface DisplayPlan {
  stdout: string;
  stderr: string;
  /** Characters of the body before and after the cap. */
  total: number;
  shown: number;
  cut: { stdout: boolean; stderr: boolean };
}

const sectionLength = (stderr: string): number => (stderr === '' ? 0 : stderr.length + STDERR_LINE.length + 2);

/**
 * Applies a display cap to a body: the tail is kept, stderr first (errors come last), then the
 * end of stdout, each starting on a line boundary when it has one. Never starts on half a
 * surrogate pair.
 */
export function planDisplay(stdout: string, stderr: string, maxChars: number | undefined): DisplayPlan {
  const total = stdout.length + sectionLength(stderr);
  if (maxChars === undefined || total <= maxChars) {
    return { stdout, stderr, total, shown: total, cut: { stdout: false, stderr: false } };
  }
  const errBudget = maxChars - sectionLength('x') + 1; // what is left of the cap for stderr's own text
  const err = stderr.length > errBudget ? keepTailLines(stderr, errBudget) : stderr;
  const left = Math.max(0, maxChars - sectionLength(err));
  const out = stdout.length > left ? keepTailLines(stdout, left) : stdout;
  return {
    stdout: out,
    stderr: err,
    total,
    shown: out.length + sectionLength(err),
    cut: { stdout: out.length < stdout.length, stderr: err.length < stderr.length },
  };
}

/** `text` fit for a marker's field: one line, without the `;` and `]` that end fields. */
function markerWord(text: string): string {
  return oneLine(text).replace(/;/g, ',').replace(/\]/g, ')').trim();
}

/** Renders a result as text ending in its markers (see the grammar in markers.ts). */
export function renderShellResult(result: RenderableResult, options: RenderOptions = {}): string {
  const trailer: string[] = (options.notes ?? []).map((n) => `[note: ${oneLine(n)}]`);
  for (const line of [truncationLine('stdout', result.stdout), truncationLine('stderr', result.stderr)]) {
    if (line) trailer.push(line);
  }
  const plan = planDisplay(result.stdout.text, result.stderr.text, options.maxChars);
  if (plan.shown < plan.total)
    trailer.push(`[output truncated: showing last ${plan.shown} of ${plan.total} characters]`);
  if ((result.leftover ?? 0) > 0) trailer.push(`[leftover processes ended: ${result.leftover}]`);
  if (result.timedOut) trailer.push(`[timed out after ${result.timeoutMs ?? 0} ms]`);
  if (result.aborted) trailer.push('[aborted]');
  const box = result.sandbox;
  if (box?.denied && box.denial) {
    const what = box.denialDetail ? ` ${markerWord(box.denialDetail)}` : '';
    trailer.push(`[sandbox denied: ${box.denial}${what}; mode: ${box.mode}]`);
  }
  if (box?.limit === 'pids') trailer.push('[sandbox limit: pids]');
  if (box?.limit === 'memory') trailer.push('[killed: out of memory in the sandbox]');
  if (box?.runnerFailed) trailer.push(`[sandbox runner failed; mode: ${box.mode}]`);
  if (result.startError) {
    trailer.push(`[failed to start: ${result.startError.code}: ${oneLine(result.startError.message)}]`);
  }
  if (result.exitCode !== null) trailer.push(`[exit code: ${result.exitCode}]`);
  else if (result.signal !== null) trailer.push(`[killed by signal: ${result.signal}]`);
  else trailer.push('[no exit status]');
  const body = renderBody(plan.stdout, plan.stderr);
  return body === '' ? trailer.join('\n') : `${body}\n${trailer.join('\n')}`;
}
