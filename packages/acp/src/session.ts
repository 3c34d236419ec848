/**
 * A sub-agent task's facts and limits, and `runAgentTask`: one prompt in a session of its own
 * (agent-session.ts), the agent ended after it.
 */
import type { Approver } from '@dsh/core';
import type { ResolvedSandbox } from '@dsh/sandbox';
import type { ShellExecutor } from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { AgentSession } from './agent-session.js';

/** How long a cancelled agent may take to answer its prompt before its tree is ended. */
export const ACP_CANCEL_GRACE_MS = 2_000;
/**
 * How long the agent may take to answer `initialize` and `session/new` (an agent answers at
 * once; one started through npx may first fetch itself). An exit, or output that is not
 * JSON-RPC, ends the wait at once.
 */
export const ACP_START_TIMEOUT_MS = 15_000;

/** What one task gave back. */
export interface AgentTaskResult {
  stopReason: string;
  /** The agent's message text of this turn. */
  message: string;
  plan: { content: string; status: string }[];
  toolCalls: { id: string; title: string; status: string }[];
  /** Set when the agent died during the turn: what it had produced is kept above. */
  failure?: { message: string; exitCode: number | null; signal: string | null };
  /** The session the turn ran in (kept for follow-ups unless it was cancelled or died). */
  sessionId?: string;
  /** Its agent's process had ended: a new one loaded the session (`session/load`) for this turn. */
  reloaded?: boolean;
}

/** What a task needs from the composition. */
export interface TaskContext {
  runtime: SubprocessRuntime;
  shell: () => ShellExecutor;
  sandbox: ResolvedSandbox | undefined;
  approver: Approver | undefined;
  agentName: string;
  workspace: string;
  /** MCP servers given to the agent's sessions. @default [] */
  mcpServers?: readonly { name: string; command: readonly string[]; env?: Record<string, string> }[];
}

/**
 * Runs one prompt with the agent `command` in a session of its own, then ends the agent.
 * @throws DshError `ACP_START_FAILED` (the agent did not start a session, with why) (rejection).
 */
export async function runAgentTask(
  command: readonly string[],
  env: Record<string, string>,
  prompt: string,
  task: TaskContext,
  signal?: AbortSignal,
  onUpdate?: (live: AgentTaskResult) => void,
): Promise<AgentTaskResult> {
  const session = await AgentSession.open(command, env, task, signal);
  if (!session) return { stopReason: 'cancelled', message: '', plan: [], toolCalls: [] };
  try {
    return await session.turn(prompt, signal, onUpdate);
  } finally {
    await session.close();
  }
}
