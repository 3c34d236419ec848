/**
 * The `agent_task` model tool: one prompt to a configured ACP agent; the result is its final
 * message, its plan and a summary of its tool calls, bounded. Cancelling the call sends
 * `session/cancel`, then ends the agent's tree.
 */
import { DshError, defineTool, type ToolDefinition, type ToolResult, toolError } from '@dsh/core';
import { z } from 'zod';
import type { AgentTaskResult } from './session.js';
import { awaitOrHandOver } from './task-job.js';

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
      const { ctx, owner, signal } = context;
      const deadline = AbortSignal.timeout(timeout_ms ?? AGENT_TASK_DEFAULT_TIMEOUT_MS);
      // The call's own signal counts until a hand-over; a job is ended by job_kill instead.
      const call = new AbortController();
      const onAbort = (): void => call.abort();
      if (signal?.aborted) call.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const kill = new AbortController();
      let live: AgentTaskResult | null = null;
      const done = ctx.get('acp').run(
        owner,
        agent,
        prompt,
        AbortSignal.any([call.signal, deadline, kill.signal]),
        (r) => {
          live = r;
        },
        session_id,
      );
      const rendered = (r: AgentTaskResult) => resultOf(r, deadline.aborted);
      try {
        const outcome = await awaitOrHandOver(
          {
            done,
            live: () => live,
            cancel: () => kill.abort(),
            render: (r) => {
              const out = rendered(r);
              return { ...out, ok: !out.isError };
            },
          },
          {
            yieldMs: context.yieldMs,
            jobs: ctx.has('jobs') ? ctx.get('jobs') : undefined,
            owner,
            title: `agent_task ${agent}: ${prompt.split('\n')[0]?.slice(0, 80) ?? ''}`,
            ...(context.progress ? { progress: context.progress } : {}),
          },
        );
        if ('result' in outcome) return rendered(outcome.result);
        signal?.removeEventListener('abort', onAbort); // the call is over; the task is not
        const note = `[note: still running after ${Math.round(outcome.elapsedMs / 1000)} s, so it goes on as background job ${outcome.jobId}. Read the agent's messages as they come with job_output {"job_id":"${outcome.jobId}"}; cancel it with job_kill.]`;
        return {
          text: outcome.shown.trim() ? `${outcome.shown.trim()}\n${note}` : note,
          isError: false,
          data: { job_id: outcome.jobId, state: 'running', yielded: true },
        };
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
  });
}
