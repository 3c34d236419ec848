/**
 * Shell results as tool results: the rendered text (markers + notes, capped for the model) and
 * the machine facts in `data`.
 */
import { type RenderableResult, renderShellResult } from '@dsh/shell';
import { MODEL_OUTPUT_MAX_CHARS } from './limits.js';

/** Machine facts of a shell result, snake_case for tool `data`. */
export function factsOf(result: RenderableResult & { durationMs?: number }): Record<string, unknown> {
  return {
    exit_code: result.exitCode,
    signal: result.signal,
    timed_out: result.timedOut ?? false,
    aborted: result.aborted ?? false,
    truncated: result.stdout.truncated || result.stderr.truncated,
    stdout_bytes: result.stdout.totalBytes,
    stderr_bytes: result.stderr.totalBytes,
    spill_paths: { stdout: result.stdout.spillPath, stderr: result.stderr.spillPath },
    duration_ms: result.durationMs ?? null,
    start_error: result.startError,
    sandbox: result.sandbox,
  };
}

/** Guidance for the model that the markers alone do not give. */
export function notesFor(result: RenderableResult, maxTimeoutMs: number | null): string[] {
  const notes: string[] = [];
  if (result.timedOut) {
    const raise = maxTimeoutMs ? `raise timeout_ms (at most ${maxTimeoutMs})` : 'raise timeout_ms';
    notes.push(`the command was killed at its deadline; ${raise} or use run_in_background for long tasks`);
  }
  for (const [name, stream] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    if (!stream.truncated) continue;
    notes.push(
      stream.spillPath
        ? `only the end of ${name} is shown; the complete ${name} is in ${stream.spillPath} (read it with head, tail, grep or sed -n)`
        : `only the end of ${name} is shown and no complete copy was kept (it exceeded the spill limit); rerun with less output, e.g. piped through tail or grep`,
    );
  }
  return notes;
}

/** The model-visible text of a foreground result. */
export function renderForModel(
  result: RenderableResult,
  maxTimeoutMs: number | null,
  extraNotes: string[] = [],
): string {
  return renderShellResult(result, {
    maxChars: MODEL_OUTPUT_MAX_CHARS,
    notes: [...extraNotes, ...notesFor(result, maxTimeoutMs)],
  });
}

/** Only the markers of a result (no body): for a job whose output the model already read incrementally. */
export function renderMarkersOnly(result: RenderableResult): string {
  const empty = (s: RenderableResult['stdout']) => ({ ...s, text: '' });
  return renderShellResult(
    { ...result, stdout: empty(result.stdout), stderr: empty(result.stderr) },
    { notes: notesFor(result, null) },
  );
}

/** Keeps the tail of `text` within the model cap, saying how much was left out. */
export function capForModel(text: string): string {
  if (text.length <= MODEL_OUTPUT_MAX_CHARS) return text;
  const omitted = text.length - MODEL_OUTPUT_MAX_CHARS;
  return `[note: ${omitted} earlier characters of this output are not shown]\n${text.slice(omitted)}`;
}
