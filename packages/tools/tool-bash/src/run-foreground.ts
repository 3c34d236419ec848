/**
 * A foreground bash call: the command runs under its deadline (the call's signal fused in);
 * while it runs, progress is reported at most once a second, and when it is still running at
 * the call's yield limit it is handed over to ctx.jobs — nothing of it lost — and the call
 * returns its output so far and the job id.
 */
import { sharesFiles, type ToolContext, type ToolResult } from '@dsh/core';
import type { JobRead, JobRun, JobService } from '@dsh/jobs';
import type { ProcessRead, ShellExecSpec, ShellExecutor, ShellProcess, ShellProcessOutcome } from '@dsh/shell';
import { OutputTail } from './output-tail.js';
import { factsOf, renderMarkersOnly } from './render-facts.js';

/** Progress reports come at most this often, and the yield limit is checked this often. */
export const PROGRESS_INTERVAL_MS = 1_000;

/** A started command as a job (reads continue where the caller stopped). */
export function jobRunOf(proc: ShellProcess, filesHere = true): JobRun {
  const asJobRead = (read: ProcessRead): JobRead => ({
    text: read.text,
    lossy: read.lossy,
    data: { spill_paths: read.spillPaths, skipped: read.skipped },
  });
  const watchOutput = proc.watchOutput?.bind(proc);
  return {
    readOutput: () => asJobRead(proc.readOutput()),
    ...(watchOutput
      ? {
          watch: () => {
            const next = watchOutput();
            return () => asJobRead(next());
          },
        }
      : {}),
    cancel: () => proc.kill(),
    done: proc.done.then((outcome) => ({
      ok: outcome.exitCode === 0 && !outcome.timedOut && !outcome.aborted,
      text: renderMarkersOnly(outcome, filesHere),
      data: { ...factsOf(outcome), killed: outcome.killed },
      cancelled: outcome.killed,
    })),
  };
}

/** Waits for `done` or `ms`, whichever comes first; null on the timer. */
function within<T>(done: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([done, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs `spec` for the call; `finish` renders the outcome. Returns the finished result, or the
 * hand-over result when the command outlived `context.yieldMs` (and ctx.jobs is mounted).
 */
export async function runForeground(options: {
  shell: ShellExecutor;
  spec: ShellExecSpec;
  context: ToolContext;
  jobs: JobService | undefined;
  finish: (outcome: ShellProcessOutcome) => ToolResult;
}): Promise<ToolResult> {
  const { shell, spec, context, jobs } = options;
  const call = new AbortController();
  const onAbort = (): void => call.abort();
  if (context.signal?.aborted) call.abort();
  context.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const proc = shell.start(spec, { deadline: true, signal: call.signal });
    const yieldMs = jobs && context.yieldMs !== undefined ? context.yieldMs : null;
    if (yieldMs === null && !context.progress) return options.finish(await proc.done);
    const started = Date.now();
    const tail = new OutputTail();
    for (;;) {
      const elapsed = Date.now() - started;
      const wait = Math.max(
        0,
        Math.min(PROGRESS_INTERVAL_MS, yieldMs === null ? PROGRESS_INTERVAL_MS : yieldMs - elapsed),
      );
      const outcome = await within(proc.done, wait);
      if (outcome) return options.finish(outcome);
      tail.add(proc.readOutput());
      const now = Date.now() - started;
      if (yieldMs !== null && now >= yieldMs && jobs) {
        context.signal?.removeEventListener('abort', onAbort); // the call is over; the job is not
        return handOver(jobs, context, spec, proc, tail, now);
      }
      context.progress?.({ elapsedMs: now, lastLine: tail.lastLine() });
    }
  } finally {
    context.signal?.removeEventListener('abort', onAbort);
  }
}

function handOver(
  jobs: JobService,
  context: ToolContext,
  spec: ShellExecSpec,
  proc: ShellProcess,
  tail: OutputTail,
  elapsedMs: number,
): ToolResult {
  const jobId = jobs.adopt(context.owner, {
    title: spec.command,
    run: () => jobRunOf(proc, sharesFiles(context.ctx)),
    startedAt: Date.now() - elapsedMs, // the command's age counts from its start, not from the yield
  });
  const note = `[note: still running after ${Math.round(elapsedMs / 1000)} s, so it goes on as background job ${jobId}; its ${spec.timeoutMs} ms deadline still applies. Read what follows with job_output {"job_id":"${jobId}"}; stop it with job_kill.]`;
  const shown = tail.render();
  return {
    text: shown === '' ? note : `${shown}\n${note}`,
    isError: false,
    data: { job_id: jobId, state: 'running', yielded: true, duration_ms: elapsedMs },
  };
}
