/**
 * `job_output`, `job_kill`, `job_list`: the model's view of its own background jobs.
 */
import { defineTool, isDshError, sharesFiles, type ToolDefinition, type ToolResult, toolError } from '@dsh/core';
import type { JobInfo } from '@dsh/jobs';
import { jobIdArgs, jobKillOutput, jobListOutput, jobOutputOutput, noArgs } from './args.js';
import { capForModel, completeCopy } from './render-facts.js';
import { spillDirOf } from './save-output.js';

function notFound(error: unknown): ToolResult {
  if (isDshError(error, 'JOB_NOT_FOUND')) return toolError(error.message, error.code);
  throw error;
}

/** What a lossy read says: how much was dropped, and where all of it is (only when that file is complete). */
function lossNote(data: Record<string, unknown> | undefined, filesHere: boolean): string {
  const skipped = Number(data?.skipped ?? 0);
  const paths = (data?.spill_paths ?? {}) as { stdout?: string | null; stderr?: string | null };
  const copy = completeCopy(paths.stdout ?? null, filesHere) ?? completeCopy(paths.stderr ?? null, filesHere);
  const what =
    skipped > 0 ? `${skipped} bytes of output since your last read were` : 'some output since your last read was';
  const where = copy
    ? `; the complete output is in ${copy}`
    : paths.stdout || paths.stderr
      ? '; its complete copy was removed (the output disk budget is full)'
      : '; no complete copy was kept (it exceeded the spill limit)';
  return `[note: ${what} dropped from memory${where}]`;
}

function age(info: JobInfo): string {
  const end = info.endedAt ?? Date.now();
  return `${Math.round((end - (info.startedAt ?? info.createdAt)) / 1000)}s`;
}

/** `job_output`: what is new since the last call, then the status. */
export function createJobOutputTool(): ToolDefinition {
  return defineTool({
    name: 'job_output',
    description:
      'New output of one of your background jobs (since your last job_output) and whether it still runs; exit markers once it ended.',
    schema: jobIdArgs,
    output: jobOutputOutput,
    annotations: { readOnlyHint: true },
    onError: notFound,
    async run({ job_id }, { ctx, owner }) {
      const out = ctx.get('jobs').output(owner, job_id);
      const { info } = out;
      // Only the output is capped: the notes around it are never cut off.
      const lines: string[] = [];
      const here = sharesFiles(ctx);
      if (out.lossy) lines.push(lossNote(out.data, here));
      if (out.text)
        lines.push(capForModel(out.text.replace(/\n$/, ''), spillDirOf(ctx.get('shell'), here), !out.lossy));
      if (info.result) lines.push(`[job ${info.id} ${info.state} after ${age(info)}]`, info.result.text);
      else lines.push(`[job ${info.id} ${info.state} for ${age(info)}; call job_output again later for more]`);
      return {
        text: lines.join('\n'),
        isError: false,
        data: { job_id: info.id, state: info.state, lossy: out.lossy, ...(info.result?.data ?? {}) },
      };
    },
  });
}

/** `job_kill`: ends one of your jobs. */
export function createJobKillTool(): ToolDefinition {
  return defineTool({
    name: 'job_kill',
    description: 'Stop one of your background jobs and its whole process tree.',
    schema: jobIdArgs,
    output: jobKillOutput,
    annotations: { destructiveHint: true, idempotentHint: true },
    onError: notFound,
    async run({ job_id }, { ctx, owner }) {
      const jobs = ctx.get('jobs');
      const killed = await jobs.kill(owner, job_id);
      const info = jobs.info(owner, job_id);
      const text = killed
        ? `Killed job ${job_id}.`
        : `Job ${job_id} had already ended (${info.state}); nothing to kill. Read its last output with job_output.`;
      return { text, isError: false, data: { job_id, killed, state: info.state } };
    },
  });
}

/** `job_list`: your jobs, oldest first. */
export function createJobListTool(): ToolDefinition {
  return defineTool({
    name: 'job_list',
    description: 'List your background jobs: state, age, command.',
    schema: noArgs,
    output: jobListOutput,
    annotations: { readOnlyHint: true },
    async run(_args, { ctx, owner }) {
      const jobs = ctx.get('jobs').list(owner);
      const text =
        jobs.length === 0
          ? 'No background jobs. Start one with bash and run_in_background: true.'
          : jobs.map((j) => `${j.id}  ${j.state.padEnd(9)} ${age(j).padStart(6)}  ${j.title}`).join('\n');
      return {
        text: capForModel(text, spillDirOf(ctx.get('shell'), sharesFiles(ctx))),
        isError: false,
        data: { jobs: jobs.map((j) => ({ job_id: j.id, state: j.state, title: j.title })) },
      };
    },
  });
}
