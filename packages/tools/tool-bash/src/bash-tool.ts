/**
 * The `bash` tool: validates, decides the sandbox (escalation included), resolves the workdir,
 * and runs in the foreground through ctx.shell (handed over to ctx.jobs at the call's yield
 * limit) or in the background through ctx.jobs. Bad input is an `isError` result, never a throw.
 */
import {
  type Approver,
  type Ctx,
  defineTool,
  isDshError,
  resolveWorkdir,
  sharesFiles,
  type ToolDefinition,
  type ToolResult,
  toolError,
} from '@dsh/core';
import type { SandboxMode } from '@dsh/sandbox';
import { infrastructureError, type ShellExecSpec, type ShellExecutor, type ShellProcessOutcome } from '@dsh/shell';
import { bashArgs, bashOutput } from './args.js';
import { escalatedEnv } from './escalated-env.js';
import { chooseSandbox } from './escalation.js';
import { type Naming, renderForModel } from './render-facts.js';
import { jobRunOf, runForeground } from './run-foreground.js';
import { WorldGenerations, worldComesBack } from './world-notes.js';

/** What the bash tool needs to know about its composition. */
export interface BashToolOptions {
  /** Absolute workspace root: the default workdir, and the base of relative ones. */
  workspace: string;
  /** Decides escalations when the call brings no approver of its own. @default none: every escalation is denied */
  approver?: Approver;
  /**
   * The mode to hold to when ctx.sandboxPolicy is not mounted (e.g. during its reload): a
   * restricted mode then still needs a fence, and without one the call is refused, never run
   * unconfined. @default unconfined (a composition without a sandbox)
   */
  defaultMode?: SandboxMode;
}

const DESCRIPTION =
  'Run a bash command; output ends with [exit code: N] or [killed by signal: X]. ' +
  'No stdin and no terminal: prompts fail at once. Long output keeps its end and names a file with all of it. ' +
  'Use run_in_background for servers and long builds, then job_output.';

function maxTimeoutOf(shell: ShellExecutor): number | null {
  const max = (shell as { config?: { maxTimeoutMs?: unknown } }).config?.maxTimeoutMs;
  return typeof max === 'number' ? max : null;
}

/** True when the composition's ctx.subprocess is a channel that was lost. */
/** Which world of a remade remote world is in use (null where worlds are not remade). */
function generationOf(ctx: Ctx): number | null {
  const g = (ctx as unknown as { subprocess?: { generation?: unknown } }).subprocess?.generation;
  return typeof g === 'number' ? g : null;
}

function worldDisconnected(ctx: Ctx): boolean {
  return (ctx as unknown as { subprocess?: { disconnected?: unknown } }).subprocess?.disconnected === true;
}

/** The result when the machine the commands run on was lost: nothing more can run there. */
export function worldLost(message: string, comesBack = false): ToolResult {
  const next = comesBack
    ? 'dsh is connecting to the machine again: call again in a few seconds; the next call runs in a fresh world (what ran in this one is gone).'
    : 'nothing more can run in this world. Tell the user the connection to the machine was lost; dsh must be restarted (or reconnected) to go on.';
  return toolError(
    `${message.replace(/\.?$/, '.')} The command may not have run, or was cut off; ${next}`,
    'WORLD_DISCONNECTED',
  );
}

/** The tool result of a finished foreground command. */
function finished(
  outcome: ShellProcessOutcome,
  spec: ShellExecSpec,
  shell: ShellExecutor,
  notes: string[],
  naming: Naming,
  filesHere: boolean,
  worldGone: () => boolean,
  comesBack = false,
): ToolResult {
  // The composition's own world was lost (not an agent's sandbox world: that is a runner failure).
  if (outcome.startError?.code === 'WORLD_DISCONNECTED' && worldGone())
    return worldLost(outcome.startError.message, comesBack);
  const failure = infrastructureError(outcome.startError, spec.sandbox?.mode);
  if (failure?.code === 'SANDBOX_UNAVAILABLE' || failure?.code === 'RESOURCE_EXHAUSTED') {
    return toolError(failure.message, failure.code);
  }
  if (failure) throw failure; // the shell itself could not run: an infrastructure failure
  const rendered = renderForModel(outcome, {
    maxTimeoutMs: maxTimeoutOf(shell),
    spillDir: filesHere ? spec.spillDir : null,
    notes,
    naming,
  });
  // A command that never started (a working directory missing in its world, …) is an error result.
  return { text: rendered.text, isError: outcome.startError !== null, data: rendered.data };
}

/** Creates the `bash` tool. */
export function createBashTool(options: BashToolOptions): ToolDefinition {
  const generations = new WorldGenerations();
  return defineTool({
    name: 'bash',
    description: DESCRIPTION,
    schema: bashArgs,
    output: bashOutput,
    annotations: { destructiveHint: true, openWorldHint: true },
    onError(error) {
      if (isDshError(error, 'INVALID_ARGUMENT')) return toolError(`Invalid bash request: ${error.message}`, error.code);
      if (
        isDshError(error, 'SANDBOX_UNAVAILABLE') ||
        isDshError(error, 'JOB_QUEUE_FULL') ||
        isDshError(error, 'RESOURCE_EXHAUSTED')
      ) {
        return toolError(error.message, error.code);
      }
      throw error;
    },
    async run(args, context) {
      const { ctx, owner } = context;
      const escalate = args.sandbox_permissions === 'require_escalated';
      if (escalate && !args.justification) {
        return toolError(
          'sandbox_permissions "require_escalated" needs a justification: say in one sentence why the command must run outside the sandbox, then call bash again.',
          'INVALID_ARGUMENT',
        );
      }
      const choice = await chooseSandbox({
        owner,
        command: args.command,
        escalate,
        justification: args.justification,
        policy: ctx.has('sandboxPolicy') ? ctx.get('sandboxPolicy') : undefined,
        defaultMode: options.defaultMode,
        workspace: options.workspace,
        approvers: [context.approve, options.approver],
      });
      if ('refusal' in choice) return choice.refusal;
      const fresh = generations.noteFor(ctx, owner);
      if (fresh) choice.notes.unshift(fresh);
      const generation = generationOf(ctx);
      // Lost while it ran: the world is gone now, or already made again.
      const gone = () => worldDisconnected(ctx) || generationOf(ctx) !== generation;
      const where = resolveWorkdir(options.workspace, args.workdir, sharesFiles(ctx));
      if ('error' in where) return toolError(where.error, 'WORKDIR_NOT_FOUND');
      const shell = ctx.get('shell');
      // An approved escalation runs outside the fence: nothing a confined command wrote may steer it.
      const escalated = escalate && choice.notes.some((n) => n.startsWith('escalation approved'));
      const spec = shell.resolve({
        command: args.command,
        timeoutMs: args.timeout_ms,
        workdir: where.dir,
        sandbox: choice.sandbox,
        ...(escalated ? { env: escalatedEnv(choice.sandbox?.writableRoots ?? [options.workspace]) } : {}),
      });
      const jobs = ctx.has('jobs') ? ctx.get('jobs') : undefined;
      // A deadline past the limit is lowered to it, and the result says so.
      const clamped =
        args.timeout_ms !== undefined && spec.timeoutMs < args.timeout_ms
          ? `timeout_ms ${args.timeout_ms} is over the limit: the command has ${spec.timeoutMs} ms; for longer work use run_in_background`
          : null;
      if (clamped) choice.notes.push(clamped);
      if (!args.run_in_background) {
        return runForeground({
          shell,
          spec,
          context,
          jobs,
          finish: (outcome) =>
            finished(outcome, spec, shell, choice.notes, context, sharesFiles(ctx), gone, worldComesBack(ctx)),
        });
      }
      const background = ctx.get('jobs');
      const jobId = background.start(owner, {
        title: args.command,
        run: () => jobRunOf(shell.start(spec), sharesFiles(ctx)),
      });
      const info = background.info(owner, jobId);
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
        text: `Started background job ${jobId}.${queued} Read its output with job_output {"job_id":"${jobId}"}; stop it with job_kill.${clamped ? `\n[note: ${clamped}]` : ''}`,
        isError: false,
        data: { job_id: jobId, state: info.state },
      };
    },
  });
}
