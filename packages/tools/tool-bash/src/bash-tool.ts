/**
 * The `bash` tool: validates, resolves the workdir, and runs in the foreground through ctx.shell
 * or in the background through ctx.jobs. Bad input is an `isError` result, never a throw.
 */
import { isDshError, resolveWorkdir, type ToolContext, type ToolDefinition, type ToolResult } from '@dsh/core';
import type { JobRun } from '@dsh/jobs';
import type { ShellExecSpec, ShellExecutor } from '@dsh/shell';
import { bashArgs, jsonSchema, parseArgs, toolError } from './args.js';
import { factsOf, renderForModel, renderMarkersOnly } from './render-facts.js';

/** What the bash tool needs to know about its composition. */
export interface BashToolOptions {
  /** Absolute workspace root: the default workdir, and the base of relative ones. */
  workspace: string;
}

const DESCRIPTION =
  'Run a bash command and get its output with [exit code: N] (or [killed by signal: X]) at the end. ' +
  'stdin is empty and there is no terminal, so interactive prompts fail at once instead of hanging. ' +
  'Long output keeps its end and names a file with the complete copy. ' +
  'Set run_in_background for servers, watchers and long builds, then poll with job_output.';

function maxTimeoutOf(shell: ShellExecutor): number | null {
  const max = (shell as { config?: { maxTimeoutMs?: unknown } }).config?.maxTimeoutMs;
  return typeof max === 'number' ? max : null;
}

/** Adapts a background `ShellProcess` to a job. */
function shellJob(shell: ShellExecutor, spec: ShellExecSpec): JobRun {
  const proc = shell.start(spec);
  return {
    readOutput: () => {
      const read = proc.readOutput();
      return { text: read.text, lossy: read.lossy, data: { spill_paths: read.spillPaths } };
    },
    cancel: () => proc.kill(),
    done: proc.done.then((outcome) => ({
      ok: outcome.exitCode === 0,
      text: renderMarkersOnly(outcome),
      data: { ...factsOf(outcome), killed: outcome.killed },
      cancelled: outcome.killed,
    })),
  };
}

/** Creates the `bash` tool. */
export function createBashTool(options: BashToolOptions): ToolDefinition {
  return {
    name: 'bash',
    description: DESCRIPTION,
    inputSchema: jsonSchema(bashArgs),
    async call(raw: unknown, { ctx, owner, signal }: ToolContext): Promise<ToolResult> {
      const parsed = parseArgs(bashArgs, raw, 'bash');
      if (!parsed.ok) return parsed.result;
      const args = parsed.value;
      if (args.sandbox_permissions === 'require_escalated' && !args.justification) {
        return toolError(
          'sandbox_permissions "require_escalated" needs a justification: say in one sentence why the command must run outside the sandbox, then call bash again.',
          'INVALID_ARGUMENT',
        );
      }
      const notes: string[] = [];
      if (args.sandbox_permissions === 'require_escalated') {
        notes.push('no sandbox is mounted in this composition, so the command already ran without confinement');
      }
      const where = resolveWorkdir(options.workspace, args.workdir);
      if ('error' in where) return toolError(where.error, 'WORKDIR_NOT_FOUND');
      const shell = ctx.get('shell');
      let spec: ShellExecSpec;
      try {
        spec = shell.resolve({ command: args.command, timeoutMs: args.timeout_ms, workdir: where.dir });
      } catch (error) {
        if (isDshError(error, 'INVALID_ARGUMENT'))
          return toolError(`Invalid bash request: ${error.message}`, error.code);
        throw error;
      }
      try {
        if (args.run_in_background) {
          const jobs = ctx.get('jobs');
          const jobId = jobs.start(owner, { title: args.command, run: () => shellJob(shell, spec) });
          const info = jobs.info(owner, jobId);
          if (info.state === 'failed') {
            return toolError(
              `The background command could not start: ${info.result?.text ?? 'unknown reason'}`,
              'JOB_FAILED',
              {
                job_id: jobId,
              },
            );
          }
          const queued = info.state === 'queued' ? ' It is queued behind your other running jobs.' : '';
          return {
            text: `Started background job ${jobId}.${queued} Read its output with job_output {"job_id":"${jobId}"}; stop it with job_kill.`,
            isError: false,
            data: { job_id: jobId, state: info.state },
          };
        }
        const result = await shell.run(spec, { signal });
        const rendered = renderForModel(result, { maxTimeoutMs: maxTimeoutOf(shell), spillDir: spec.spillDir, notes });
        return { text: rendered.text, isError: false, data: rendered.data };
      } catch (error) {
        if (isDshError(error, 'SANDBOX_UNAVAILABLE') || isDshError(error, 'JOB_QUEUE_FULL')) {
          return toolError(error.message, error.code);
        }
        throw error;
      }
    },
  };
}
