/**
 * The `agent_task` model tool: one prompt to a configured ACP agent; the result is its final
 * message, its plan and a summary of its tool calls, bounded. Cancelling the call sends
 * `session/cancel`, then ends the agent's tree.
 */
import { DshError, defineTool, type ToolDefinition, type ToolResult, toolError } from '@dsh/core';
import { z } from 'zod';
import type { AgentTaskResult } from './session.js';

/** Most characters of an agent's message a model sees (the end is kept). */
export const AGENT_TASK_MAX_CHARS = 30_000;
/** The default and the longest deadline of one task. */
export const AGENT_TASK_DEFAULT_TIMEOUT_MS = 600_000;
export const AGENT_TASK_MAX_TIMEOUT_MS = 3_600_000;

const args = z
  .object({
    agent: z.string().min(1).describe('a configured ACP agent'),
    prompt: z.string().min(1).describe('the task'),
    timeout_ms: z.number().int().min(1).max(AGENT_TASK_MAX_TIMEOUT_MS).optional().describe('deadline (default 600000)'),
  })
  .strict();

const output = z.object({
  error: z.object({ code: z.string() }).optional(),
  stop_reason: z.string().optional(),
  tool_calls: z.number().optional(),
});

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
  lines.push('', timedOut ? `[stop reason: ${r.stopReason}; the task timed out]` : `[stop reason: ${r.stopReason}]`);
  return lines.join('\n');
}

/** Creates agent_task. */
export function createAgentTaskTool(): ToolDefinition {
  return defineTool({
    name: 'agent_task',
    description: 'Give a task to a configured sub-agent (ACP); returns its final message, plan and tool calls.',
    schema: args,
    output,
    annotations: { destructiveHint: true },
    onError: (error): ToolResult => {
      if (error instanceof DshError && (error.code.startsWith('ACP_') || error.code === 'SANDBOX_UNAVAILABLE'))
        return toolError(error.message, error.code);
      throw error;
    },
    async run({ agent, prompt, timeout_ms }, { ctx, owner, signal }) {
      const deadline = AbortSignal.timeout(timeout_ms ?? AGENT_TASK_DEFAULT_TIMEOUT_MS);
      const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
      const r = await ctx.get('acp').run(owner, agent, prompt, both);
      return {
        text: render(r, deadline.aborted),
        isError: false,
        data: { stop_reason: r.stopReason, tool_calls: r.toolCalls.length },
      };
    },
  });
}
