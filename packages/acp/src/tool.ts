/**
 * The `agent_task` model tool: one prompt to a configured ACP agent; the result is its final
 * message, its plan and a summary of its tool calls, bounded. Cancelling the call sends
 * `session/cancel`, then ends the agent's tree.
 */
import { DshError, defineTool, type ToolContext, type ToolDefinition, type ToolResult, toolError } from '@dsh/core';
import { z } from 'zod';
import type { AgentTaskResult } from './session.js';
import { awaitOrHandOver } from './task-job.js';
import { AgentTaskRun, PERMISSION_ANSWER_WAIT_MS } from './task-run.js';

/** Most characters of an agent's message a model sees (the end is kept). */
export const AGENT_TASK_MAX_CHARS = 30_000;
/** The default and the longest deadline of one task. */
export const AGENT_TASK_DEFAULT_TIMEOUT_MS = 600_000;
export const AGENT_TASK_MAX_TIMEOUT_MS = 3_600_000;

/** Longest purpose line of an agent shown in the tool's description. */
export const AGENT_PURPOSE_MAX_CHARS = 120;

/** The agents as the schema names them: `name (purpose)`, or the plain names. */
function agentList(agents: Readonly<Record<string, { description?: string }>>): string {
  return Object.entries(agents)
    .map(([name, a]) => (a.description ? `${name} (${a.description.slice(0, AGENT_PURPOSE_MAX_CHARS)})` : name))
    .join('; ');
}

/** The arguments, with the configured agents named in `agent`'s description. */
function argsFor(agents: Readonly<Record<string, { description?: string }>>) {
  const names = Object.keys(agents);
  return z
    .object({
      agent: z
        .string()
        .min(1)
        .describe(names.length ? `one of: ${agentList(agents)}` : 'a configured ACP agent'),
      prompt: z.string().min(1).describe('the task, or your answer to the agent'),
      session_id: z
        .string()
        .min(1)
        .optional()
        .describe('continue this session (from an earlier result) instead of starting a new one'),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(AGENT_TASK_MAX_TIMEOUT_MS)
        .optional()
        .describe('deadline (default 600000)'),
    })
    .strict();
}

const output = z.object({
  job_id: z.string().optional(),
  session_id: z.string().optional(),
  reloaded: z.boolean().optional(),
  state: z.string().optional(),
  yielded: z.boolean().optional(),
  error: z.object({ code: z.string() }).optional(),
  stop_reason: z.string().optional(),
  tool_calls: z.number().optional(),
  exit_code: z.number().nullable().optional(),
  signal: z.string().nullable().optional(),
});

/** The tool result of an ended task. */
function resultOf(r: AgentTaskResult, timedOut: boolean): ToolResult {
  const failed = r.failure
    ? { error: { code: 'ACP_AGENT_FAILED' }, exit_code: r.failure.exitCode, signal: r.failure.signal }
    : {};
  return {
    text: render(r, timedOut),
    isError: r.failure !== undefined,
    data: {
      stop_reason: r.stopReason,
      tool_calls: r.toolCalls.length,
      ...(r.sessionId ? { session_id: r.sessionId } : {}),
      ...(r.reloaded ? { reloaded: true } : {}),
      ...failed,
    },
  };
}

function render(r: AgentTaskResult, timedOut: boolean): string {
  const message =
    r.message.length > AGENT_TASK_MAX_CHARS
      ? `[note: ${r.message.length - AGENT_TASK_MAX_CHARS} earlier characters not shown]\n${r.message.slice(-AGENT_TASK_MAX_CHARS)}`
      : r.message;
  const lines = [message.trim() || '(the agent sent no message)'];
  if (r.reloaded) {
    lines.unshift(
      `[note: the agent's process for session ${r.sessionId} had ended; a new one loaded the session (session/load) and went on]`,
    );
  }
  if (r.plan.length) lines.push('', '[plan]', ...r.plan.map((e) => `- [${e.status}] ${e.content}`));
  if (r.toolCalls.length)
    lines.push(
      '',
      `[tool calls: ${r.toolCalls.length}]`,
      ...r.toolCalls.slice(0, 50).map((c) => `- ${c.status}: ${c.title}`),
    );
  if (r.failure) lines.push('', `[the agent died during the task: ${r.failure.message}]`);
  else
    lines.push('', timedOut ? `[stop reason: ${r.stopReason}; the task timed out]` : `[stop reason: ${r.stopReason}]`);
  if (!r.failure && r.sessionId && r.stopReason !== 'cancelled') {
    lines.push(
      `[session ${r.sessionId}: to answer the agent or go on, call agent_task with session_id "${r.sessionId}"]`,
    );
  }
  return lines.join('\n');
}

/** Creates agent_task; its schema names `agents` (the configured ones). */
export function createAgentTaskTool(agents: Readonly<Record<string, { description?: string }>> = {}): ToolDefinition {
  const names = Object.keys(agents);
  return defineTool({
    name: 'agent_task',
    description: `Give a task to a configured sub-agent (ACP)${names.length ? ` (${names.join(', ')})` : ''}; returns its final message, plan and tool calls.`,
    schema: argsFor(agents),
    output,
    annotations: { destructiveHint: true },
    onError: (error): ToolResult => {
      if (error instanceof DshError && (error.code.startsWith('ACP_') || error.code === 'SANDBOX_UNAVAILABLE'))
        return toolError(error.message, error.code);
      throw error;
    },
    async run({ agent, prompt, timeout_ms, session_id }, context) {
      const { ctx, owner } = context;
      const acp = ctx.get('acp');
      // A retry that brings the person's answer to a waiting permission request goes on with that task.
      const resumed = acp.answeredTask(owner, context.answered);
      if (!resumed && context.answering) {
        // An answer to a request no task waits for any more: never a second run of the same task.
        return toolError(
          `The answer came after the sub-agent's permission request had ended (its task ended, or it waited past ${PERMISSION_ANSWER_WAIT_MS / 60_000} min); call agent_task again, with its session_id to go on.`,
          'ACP_PERMISSION_EXPIRED',
        );
      }
      const run =
        resumed ??
        new AgentTaskRun(
          owner,
          (signal, onUpdate, permit) => acp.run(owner, agent, prompt, signal, onUpdate, session_id, permit),
          timeout_ms ?? AGENT_TASK_DEFAULT_TIMEOUT_MS,
          acp.approver,
          (r) => {
            const out = resultOf(r, run.deadline.aborted);
            return { ...out, ok: !out.isError };
          },
          (r, parked) => acp.parking(r, parked),
        );
      return waitForTask(run, context, `agent_task ${agent}: ${prompt.split('\n')[0]?.slice(0, 80) ?? ''}`);
    },
  });
}

/** The call's wait on `run`: its result, its hand-over to a job, or the person being asked. */
async function waitForTask(run: AgentTaskRun, context: ToolContext, title: string): Promise<ToolResult> {
  const { ctx, owner, signal } = context;
  let asked: () => void = () => undefined;
  const interrupt = new Promise<void>((resolve) => {
    asked = resolve;
  });
  run.attach({ approve: context.approve, asked });
  // The call's own signal counts while it waits; a job is ended by job_kill instead.
  const onAbort = (): void => run.cancel();
  if (signal?.aborted) run.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const outcome = await awaitOrHandOver(run, {
      yieldMs: context.yieldMs,
      jobs: ctx.has('jobs') ? ctx.get('jobs') : undefined,
      owner,
      title,
      interrupt,
      startedAt: run.startedAt,
      ...(context.progress ? { progress: context.progress } : {}),
    });
    if ('result' in outcome) {
      const out = run.render(outcome.result);
      return { text: out.text, isError: !out.ok, data: out.data };
    }
    run.attach(null);
    if ('interrupted' in outcome) {
      return toolError(
        "The user is being asked to answer the sub-agent's permission request; the task waits for the answer.",
        'ESCALATION_PENDING',
      );
    }
    const note = `[note: still running after ${Math.round(outcome.elapsedMs / 1000)} s, so it goes on as background job ${outcome.jobId}. Read the agent's messages as they come with job_output {"job_id":"${outcome.jobId}"}; cancel it with job_kill.]`;
    return {
      text: outcome.shown.trim() ? `${outcome.shown.trim()}\n${note}` : note,
      isError: false,
      data: { job_id: outcome.jobId, state: 'running', yielded: true },
    };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
