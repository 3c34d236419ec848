/**
 * A long sub-agent task never dies at the client's request timeout: while it runs, progress
 * carries the agent's latest message line (at most once a second), and at the call's yield limit
 * it is handed over to ctx.jobs, as a foreground `bash` is. `job_output` then reads the
 * transcript as it grows, `job_kill` cancels it (`session/cancel`, then the agent's tree ends),
 * and the job's end carries the whole rendered result.
 */
import { type Owner, type ProgressReport, settleWithin } from '@dsh/core';
import type { JobRun, JobService } from '@dsh/jobs';
import type { AgentTaskResult } from './session.js';

/** Progress reports come at most this often, and the yield limit is checked this often. */
export const AGENT_PROGRESS_INTERVAL_MS = 1_000;

/** The last non-empty line of the agent's message so far. */
function lastLine(live: AgentTaskResult | null): string {
  const lines = (live?.message ?? '').split('\n').filter((l) => l.trim() !== '');
  return lines.at(-1) ?? '';
}

/** What a running task exposes to the hand-over. */
export interface RunningTask {
  done: Promise<AgentTaskResult>;
  /** The transcript so far (null before the first update). */
  live(): AgentTaskResult | null;
  /** Cancels the task (session/cancel, then its tree). */
  cancel(): void;
  /** Renders an ended task for a reader, and whether it succeeded. */
  render(r: AgentTaskResult): { text: string; ok: boolean; data: Record<string, unknown> };
}

/**
 * Waits for the task, reporting progress; at `yieldMs` (when jobs are mounted) hands it over.
 * Resolves to the result, or to the job id it now runs as.
 */
export async function awaitOrHandOver(
  task: RunningTask,
  options: {
    yieldMs: number | undefined;
    jobs: JobService | undefined;
    owner: Owner;
    title: string;
    progress?: (r: ProgressReport) => void;
    /** Ends the wait early (the person is being asked about a permission request). @default never */
    interrupt?: Promise<void>;
    /** When the task began (epoch ms; a resumed call's yield still counts from its own start). @default now */
    startedAt?: number;
  },
): Promise<{ result: AgentTaskResult } | { jobId: string; elapsedMs: number; shown: string } | { interrupted: true }> {
  const callStarted = Date.now();
  const started = options.startedAt ?? callStarted;
  const yieldMs = options.jobs ? options.yieldMs : undefined;
  const stop = options.interrupt?.then(() => ({ interrupted: true as const }));
  const done = task.done.then((result) => ({ result }));
  const next = stop ? Promise.race([done, stop]) : done;
  if (yieldMs === undefined && !options.progress) return next;
  for (;;) {
    const elapsed = Date.now() - callStarted;
    const wait = Math.max(
      0,
      Math.min(AGENT_PROGRESS_INTERVAL_MS, yieldMs === undefined ? AGENT_PROGRESS_INTERVAL_MS : yieldMs - elapsed),
    );
    const settled = await settleWithin(next, wait, () => null);
    if (settled) return settled;
    const now = Date.now() - started;
    if (yieldMs !== undefined && Date.now() - callStarted >= yieldMs && options.jobs) {
      const shownUpTo = task.live()?.message.length ?? 0;
      const jobId = options.jobs.adopt(options.owner, {
        title: options.title,
        startedAt: started,
        run: () => jobRunOf(task, shownUpTo),
      });
      return { jobId, elapsedMs: now, shown: task.live()?.message ?? '' };
    }
    options.progress?.({ elapsedMs: now, lastLine: lastLine(task.live()) });
  }
}

/** The task as a job: reads go on from what the call already showed. */
function jobRunOf(task: RunningTask, shownUpTo: number): JobRun {
  let read = shownUpTo;
  return {
    readOutput: () => {
      const message = task.live()?.message ?? '';
      const text = message.slice(read);
      read = message.length;
      return { text, lossy: false };
    },
    cancel: async () => {
      task.cancel();
      const r = await task.done.catch(() => null);
      return r?.stopReason === 'cancelled';
    },
    done: task.done.then((r) => {
      const rendered = task.render(r);
      return { ok: rendered.ok, text: rendered.text, data: rendered.data, cancelled: r.stopReason === 'cancelled' };
    }),
  };
}
