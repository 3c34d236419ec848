/**
 * The `bash` tool: validates, resolves the workdir, and runs in the foreground through ctx.shell
 * or in the background through ctx.jobs. Bad input is an `isError` result, never a throw.
 */
import { isDshError, resolveWorkdir, type ToolContext, type ToolDefinition, type ToolResult } from '@dsh/core';
import type { JobRun } from '@dsh/jobs';
import type { SandboxMode } from '@dsh/sandbox';
import type { ShellExecSpec, ShellExecutor } from '@dsh/shell';
import { bashArgs, jsonSchema, parseArgs, toolError } from './args.js';
import { factsOf, renderForModel, renderMarkersOnly } from './render-facts.js';

/** An escalation the approver decides. */
export interface EscalationRequest {
  /** The agent's name (display only). */
  agent: string;
  command: string;
  justification: string;
  /** The mode in force, and the one asked for. */
  from: SandboxMode;
  to: SandboxMode;
}

/** What the bash tool needs to know about its composition. */
export interface BashToolOptions {
  /** Absolute workspace root: the default workdir, and the base of relative ones. */
  workspace: string;
  /** Decides escalations (`sandbox_permissions: 'require_escalated'`). @default none: every escalation is denied */
  approver?: (request: EscalationRequest) => Promise<boolean>;
  /**
   * The mode to hold to when ctx.sandboxPolicy is not mounted (e.g. during its reload): a
   * restricted mode then still needs a fence, and without one the call is refused, never run
   * unconfined. @default unconfined (a composition without a sandbox)
   */
  defaultMode?: SandboxMode;
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
      const policy = ctx.has('sandboxPolicy') ? ctx.get('sandboxPolicy') : undefined;
      let sandbox =
        policy?.resolve(owner) ??
        (options.defaultMode
          ? { mode: options.defaultMode, writableRoots: [options.workspace], network: false }
          : undefined);
      if (args.sandbox_permissions === 'require_escalated') {
        const from = sandbox?.mode ?? 'danger-full-access';
        if (from === 'danger-full-access') {
          notes.push('commands already run without a sandbox here, so no escalation was needed');
        } else {
          const request = {
            agent: owner.name,
            command: args.command,
            justification: args.justification ?? '',
            from,
            to: 'danger-full-access' as const,
          };
          const approved = options.approver ? await options.approver(request).catch(() => false) : false;
          if (!approved) {
            const who = options.approver ? 'the approver denied it' : 'no approver is configured in this composition';
            return toolError(
              `Escalation out of the ${from} sandbox was not granted (${who}); the command did not run. Do it inside the sandbox, or ask the user.`,
              'ESCALATION_DENIED',
              { mode: from },
            );
          }
          sandbox = policy?.resolve(owner, 'danger-full-access');
          notes.push(`escalation approved: this command ran without the ${from} sandbox`);
        }
      }
      const where = resolveWorkdir(options.workspace, args.workdir);
      if ('error' in where) return toolError(where.error, 'WORKDIR_NOT_FOUND');
      const shell = ctx.get('shell');
      let spec: ShellExecSpec;
      try {
        spec = shell.resolve({ command: args.command, timeoutMs: args.timeout_ms, workdir: where.dir, sandbox });
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
