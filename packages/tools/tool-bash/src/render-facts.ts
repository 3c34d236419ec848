/**
 * Shell results as tool results: the rendered text (markers + notes, capped for the model) and
 * the machine facts in `data`. Whenever the model is shown only the end of a stream, a note
 * names a file with all of it.
 */
import { existsSync } from 'node:fs';
import { argName, saveText, type ToolCallOptions } from '@dsh/core';
import { PROXY_BYPASSED } from '@dsh/sandbox';
import { keepTailLines, planDisplay, type RenderableResult, renderShellResult } from '@dsh/shell';
import { MODEL_OUTPUT_MAX_CHARS, TRAILER_RESERVE_CHARS } from './limits.js';

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
    left_running: result.leftover ?? 0,
  };
}

/** How notes name the caller's arguments (a CLI says `--timeout`, a model `timeout_ms`). */
export type Naming = Pick<ToolCallOptions, 'argNames'>;

function timeoutNote(result: RenderableResult, maxTimeoutMs: number | null, naming: Naming): string[] {
  if (!result.timedOut) return [];
  const timeout = argName(naming, 'timeout_ms');
  const background = argName(naming, 'run_in_background');
  const ways: string[] = [];
  if (timeout) ways.push(maxTimeoutMs ? `raise ${timeout} (at most ${maxTimeoutMs})` : `raise ${timeout}`);
  if (background) ways.push(`use ${background} for long tasks`);
  const waited =
    'if it was waiting for input (an editor, a pager, a prompt), give the input with a pipe, a heredoc or a file';
  return [`the command was killed at its deadline${ways.length > 0 ? `; ${ways.join(' or ')}` : ''}; ${waited}`];
}

function leftoverNote(result: RenderableResult, naming: Naming): string[] {
  const n = result.leftover ?? 0;
  if (n === 0) return [];
  const what = `${n} process${n === 1 ? '' : 'es'} the command left running ${n === 1 ? 'was' : 'were'} ended when it returned`;
  const background = argName(naming, 'run_in_background');
  return [background ? `${what}; start servers and watchers with ${background} and read them with job_output` : what];
}

/**
 * `path` when the complete copy is still on disk; null when it was removed (e.g. by the disk
 * budget). With `filesHere` false the copy is on another machine and is taken as it is named.
 */
export function completeCopy(path: string | null, filesHere = true): string | null {
  return path !== null && (!filesHere || existsSync(path)) ? path : null;
}

const readHint = '(read it with head, tail, grep or sed -n)';

/** What to do after the sandbox refused something or a world limit was hit (none otherwise). */
function sandboxNote(result: RenderableResult): string[] {
  const box = result.sandbox;
  if (!box) return [];
  if (box.limit === 'pids') {
    return [
      'the sandbox’s process limit was reached (forks failed): run fewer processes at once (e.g. make -j2), then retry',
    ];
  }
  if (box.limit === 'memory') {
    return [
      'the sandbox’s memory limit was reached and a process was killed: use less memory (smaller inputs, fewer parallel jobs), then retry',
    ];
  }
  const host = box.denied && box.denial === 'network' ? /^to (\S+)/.exec(box.denialDetail ?? '')?.[1] : undefined;
  if (host && /on the deny list/.test(box.denialDetail ?? '')) {
    return [
      `${host} is on this sandbox's deny list, which wins over every allow entry; do the task without it, or ask for sandbox_permissions "require_escalated" with a justification`,
    ];
  }
  if (host && /private address/.test(box.denialDetail ?? '')) {
    return [
      `${host} is allowed, but its name resolves to a private address, which this sandbox does not reach for a name; if that is meant (a mirror on the LAN), ask the person to set sandbox.network.allowPrivate or allow that address, or ask for sandbox_permissions "require_escalated" with a justification`,
    ];
  }
  if (host) {
    return [
      `this sandbox reaches only the hosts its network setting names, through its proxy; if ${host} is needed, ask for sandbox_permissions "require_escalated" with a justification, or ask the person to allow it (dsh --allow-host ${host}, or sandbox.network.allow in the config)`,
    ];
  }
  if (box.denied && box.denial === 'network' && box.denialDetail === PROXY_BYPASSED) {
    return [
      'this sandbox reaches the network only through its proxy, and this program looked the host name up itself instead of using the proxy variables (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, set for every command); use a tool that honours them (curl, wget, pip, git, npm, Node.js 22.21 or later), or pass the proxy to the program explicitly',
    ];
  }
  if (box.denied && box.denial === 'syscall') {
    return [
      `the sandbox refuses the ${box.denialDetail ?? 'system'} call in every confined mode; do the task another way, or, if it must run, ask for sandbox_permissions "require_escalated" with a justification`,
    ];
  }
  return [];
}

/** Notes for what the model should do next: timeouts, leftovers, the sandbox, and truncated streams. */
export function notesFor(
  result: RenderableResult,
  maxTimeoutMs: number | null,
  naming: Naming = {},
  filesHere = true,
): string[] {
  const notes = [...timeoutNote(result, maxTimeoutMs, naming), ...leftoverNote(result, naming), ...sandboxNote(result)];
  for (const [name, stream] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    if (!stream.truncated) continue;
    const copy = completeCopy(stream.spillPath, filesHere);
    notes.push(
      copy
        ? `only the end of ${name} is shown; the complete ${name} is in ${copy} ${readHint}`
        : stream.spillPath
          ? `only the end of ${name} is shown; its complete copy was removed (the output disk budget is full); rerun with less output, e.g. piped through tail or grep`
          : stream.spillError
            ? `only the end of ${name} is shown; its complete copy could not be written (${stream.spillError}); free space in the output directory, or rerun with less output`
            : `only the end of ${name} is shown and no complete copy was kept (it exceeded the spill limit); rerun with less output, e.g. piped through tail or grep`,
    );
  }
  return notes;
}

/**
 * The model-visible text of a foreground result and its facts. The body is capped so the whole
 * text stays near {@link MODEL_OUTPUT_MAX_CHARS}; a stream cut only by that cap is saved to a
 * file in `spillDir` and named in a note.
 */
export function renderForModel(
  result: RenderableResult & { durationMs?: number },
  options: { maxTimeoutMs: number | null; spillDir: string | null; notes?: string[]; naming?: Naming },
): { text: string; data: Record<string, unknown> } {
  const maxChars = MODEL_OUTPUT_MAX_CHARS - TRAILER_RESERVE_CHARS;
  const plan = planDisplay(result.stdout.text, result.stderr.text, maxChars);
  const notes = [
    ...(options.notes ?? []),
    ...notesFor(result, options.maxTimeoutMs, options.naming, options.spillDir !== null),
  ];
  const saved: Record<string, string | null> = {};
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = result[name];
    if (!plan.cut[name] || stream.truncated) continue; // a truncated stream already has its note
    // Output that is not UTF-8 text is saved as the bytes it was (the shown text is decoded).
    const raw = stream.raw;
    const path = saveText(options.spillDir, raw ? `${name}.bytes` : `${name}.shown`, raw ?? stream.text);
    saved[name] = path;
    notes.push(
      !path
        ? `only the end of ${name} is shown here, and a complete copy could not be written`
        : raw
          ? `only the end of ${name} is shown here, decoded (it is not UTF-8 text: � stands for bytes that are not); all ${raw.length} bytes, as produced, are in ${path} (read it with od, xxd or file)`
          : `only the end of ${name} is shown here; all of it is in ${path} ${readHint}`,
    );
  }
  const text = renderShellResult(result, { maxChars, notes });
  const displayCut = plan.cut.stdout || plan.cut.stderr;
  const data = factsOf(result);
  return {
    text,
    data: {
      ...data,
      truncated: data.truncated === true || displayCut,
      display_truncated: displayCut,
      saved_output: saved,
    },
  };
}

/** Only the markers of a result (no body): for a job whose output the model already read incrementally. */
export function renderMarkersOnly(result: RenderableResult, filesHere = true): string {
  // The text is left out, not lost: the markers keep saying how much of it was kept.
  const empty = (s: RenderableResult['stdout']) => ({
    ...s,
    text: '',
    keptBytes: s.keptBytes ?? Buffer.byteLength(s.text),
  });
  return renderShellResult(
    { ...result, stdout: empty(result.stdout), stderr: empty(result.stderr) },
    { notes: notesFor(result, null, {}, filesHere) },
  );
}

/**
 * Keeps the tail of a non-result text (e.g. new job output) within the model cap, on a line
 * boundary; when it cuts, the text is saved in `spillDir` and the note says where. `complete`
 * says whether the text is all of what it stands for: only then is the saved file "all of it".
 */
export function capForModel(text: string, spillDir: string | null, complete = true): string {
  if (text.length <= MODEL_OUTPUT_MAX_CHARS) return text;
  const shown = keepTailLines(text, MODEL_OUTPUT_MAX_CHARS - TRAILER_RESERVE_CHARS);
  const path = saveText(spillDir, 'output', text);
  const what = complete ? 'all of it' : 'all this read returned';
  const where = path ? `; ${what} is in ${path} ${readHint}` : '';
  return `[note: ${text.length - shown.length} earlier characters of this output are not shown${where}]\n${shown}`;
}
