/**
 * One sub-agent task: the ACP agent is spawned through ctx.subprocess (stdin pipe, stdout pipe
 * carrying ndjson, stderr collected for failure reports: agent-failure.ts), initialized as a client that serves files, permission and
 * v1 terminals, given one prompt in a new session; its updates are gathered (message, plan, tool
 * calls) until the prompt ends. A cancel sends `session/cancel`, then the tree is ended.
 */
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { type Approver, DshError, settleWithin } from '@dsh/core';
import type { ResolvedSandbox } from '@dsh/sandbox';
import type { ShellExecutor } from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { ACP_STDERR_TAIL_BYTES, describeExit, watchStdout } from './agent-failure.js';
import { filesOf } from './files.js';
import { AcpTerminals } from './terminals.js';

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
}

/** What a task needs from the composition. */
export interface TaskContext {
  runtime: SubprocessRuntime;
  shell: () => ShellExecutor;
  sandbox: ResolvedSandbox | undefined;
  approver: Approver | undefined;
  agentName: string;
  workspace: string;
}

/** `p`, or an `ACP_TIMEOUT` error saying `what` once `ms` passed. */
function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return settleWithin(p, ms, (): never => {
    throw new DshError('ACP_TIMEOUT', what);
  });
}

/**
 * Runs one prompt with the agent `command`.
 * @throws DshError `ACP_START_FAILED` (the agent did not start or answer), `ACP_TIMEOUT` (rejections).
 */
export async function runAgentTask(
  command: readonly string[],
  env: Record<string, string>,
  prompt: string,
  task: TaskContext,
  signal?: AbortSignal,
  onUpdate?: (live: AgentTaskResult) => void,
): Promise<AgentTaskResult> {
  const handle = task.runtime.spawn({
    argv: command,
    cwd: task.workspace,
    env,
    stdin: { kind: 'pipe' },
    stdout: { kind: 'pipe' },
    stderr: { kind: 'collect', maxBytes: ACP_STDERR_TAIL_BYTES },
    graceMs: ACP_CANCEL_GRACE_MS,
  });
  const stdin = handle.stdin as NonNullable<typeof handle.stdin>;
  let phase: 'starting' | 'running' = 'starting';
  const { stream: stdout, notAcp } = watchStdout(handle.stdout as Readable, () => phase === 'starting');
  const stderr = (): string => handle.stderrReader?.read(0).text ?? '';
  stdin.on('error', () => undefined);
  const terminals = new AcpTerminals(task.shell, () => task.sandbox, task.workspace);
  const files = filesOf(task.runtime);
  const result: AgentTaskResult = { stopReason: 'unknown', message: '', plan: [], toolCalls: [] };
  const calls = new Map<string, { id: string; title: string; status: string }>();
  const app = client({ name: 'dsh' })
    .onNotification(methods.client.session.update, ({ params }) => {
      const u = params.update as Record<string, unknown> & { sessionUpdate: string };
      if (u.sessionUpdate === 'agent_message_chunk') {
        const content = u.content as { type: string; text?: string };
        if (content.type === 'text') result.message += content.text ?? '';
      } else if (u.sessionUpdate === 'plan') {
        result.plan = (u.entries as { content: string; status: string }[]).map((e) => ({
          content: e.content,
          status: e.status,
        }));
      } else if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') {
        const id = String(u.toolCallId);
        const known = calls.get(id) ?? { id, title: '', status: 'pending' };
        if (typeof u.title === 'string') known.title = u.title;
        if (typeof u.status === 'string') known.status = u.status;
        calls.set(id, known);
        result.toolCalls = [...calls.values()];
      }
      onUpdate?.(result);
    })
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      const text = await files.read(params.path);
      if (params.line == null && params.limit == null) return { content: text };
      const lines = text.split('\n');
      const from = Math.max(0, (params.line ?? 1) - 1);
      return { content: lines.slice(from, params.limit == null ? undefined : from + params.limit).join('\n') };
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      await files.write(params.path, params.content, task.sandbox);
      return {};
    })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      const allow =
        params.options.find((o) => o.kind === 'allow_once') ?? params.options.find((o) => o.kind === 'allow_always');
      const reject =
        params.options.find((o) => o.kind === 'reject_once') ?? params.options.find((o) => o.kind === 'reject_always');
      const decision = task.approver
        ? await task.approver({
            agent: task.agentName,
            tool: 'agent_task',
            command: params.toolCall.title ?? params.toolCall.toolCallId,
            justification: `the sub-agent ${task.agentName} asks permission`,
            from: task.sandbox?.mode ?? 'danger-full-access',
            to: task.sandbox?.mode ?? 'danger-full-access',
          })
        : false;
      const approved = typeof decision === 'boolean' ? decision : decision.approved;
      const option = approved ? allow : reject;
      return option
        ? { outcome: { outcome: 'selected', optionId: option.optionId } }
        : { outcome: { outcome: 'cancelled' } };
    })
    .onRequest(methods.client.terminal.create, async ({ params }) => ({ terminalId: terminals.create(params) }))
    .onRequest(methods.client.terminal.output, async ({ params }) => terminals.output(params.terminalId))
    .onRequest(methods.client.terminal.waitForExit, async ({ params, signal: s }) =>
      terminals.waitForExit(params.terminalId, s),
    )
    .onRequest(methods.client.terminal.kill, async ({ params }) => {
      terminals.kill(params.terminalId);
      return {};
    })
    .onRequest(methods.client.terminal.release, async ({ params }) => {
      terminals.release(params.terminalId);
      return {};
    });
  const stream = ndJsonStream(
    Writable.toWeb(stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
  );
  // The process ending (or proving not to be an ACP agent) is the failure it is, at once.
  const ended = handle.exit.then((outcome) => {
    throw new DshError(
      phase === 'starting' ? 'ACP_START_FAILED' : 'ACP_AGENT_FAILED',
      describeExit(outcome, stderr()),
      {
        data: { exitCode: outcome.exitCode, signal: outcome.signal },
      },
    );
  });
  ended.catch(() => undefined);
  const foreign = notAcp.then((line) => {
    throw new DshError(
      'ACP_START_FAILED',
      `it is not an ACP agent: its first output line was not JSON-RPC: ${JSON.stringify(line)}`,
    );
  });
  foreign.catch(() => undefined);
  try {
    await app.connectWith(stream, async (ctx) => {
      const started = (async () => {
        await ctx.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          clientInfo: { name: 'dsh', version: '0.1.0' },
        });
        return ctx.request(methods.agent.session.new, { cwd: task.workspace, mcpServers: [] });
      })();
      // A cancel while the agent starts ends the task at once (the tree is ended below).
      const abandoned = new Promise<null>((r) => {
        if (signal?.aborted) r(null);
        else signal?.addEventListener('abort', () => r(null), { once: true });
      });
      started.catch(() => undefined);
      const session = await withTimeout(
        Promise.race([started, abandoned, ended, foreign]),
        ACP_START_TIMEOUT_MS,
        'no session within the start timeout',
      );
      phase = 'running';
      if (session === null || signal?.aborted) {
        result.stopReason = 'cancelled';
        return;
      }
      // A cancel asks the agent to stop; past the grace the turn counts as cancelled anyway.
      let graceOver: () => void = () => undefined;
      const cancelled = new Promise<{ stopReason: string }>((r) => {
        graceOver = () => r({ stopReason: 'cancelled' });
      });
      const onAbort = () => {
        void ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
        setTimeout(graceOver, ACP_CANCEL_GRACE_MS).unref();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const turn = ctx.request(methods.agent.session.prompt, {
          sessionId: session.sessionId,
          prompt: [{ type: 'text', text: prompt }],
        });
        result.stopReason = (await Promise.race([turn, cancelled, ended])).stopReason;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    });
  } catch (error) {
    let why = error instanceof Error ? error.message : String(error);
    if (phase === 'starting') {
      if (error instanceof DshError && error.code !== 'ACP_TIMEOUT' && error.code !== 'ACP_START_FAILED') throw error;
      // The pipe broke first (EPIPE, connection closed): the process's end says why, when it ended.
      if (!(error instanceof DshError)) {
        const facts = await settleWithin(handle.exit, ACP_CANCEL_GRACE_MS, () => null);
        if (facts) why = describeExit(facts, stderr());
      }
      throw new DshError(
        'ACP_START_FAILED',
        `The ACP agent ${task.agentName} (${command.join(' ')}) did not start a session: ${why.replace(/\.$/, '')}.`,
        { data: { ...((error as DshError).data ?? {}) } },
      );
    }
    // Died mid-turn: what the turn produced is kept, with how the agent ended.
    const facts = await settleWithin(handle.exit, ACP_CANCEL_GRACE_MS, () => null);
    const how = facts ? describeExit(facts, stderr()) : why;
    result.failure = { message: how, exitCode: facts?.exitCode ?? null, signal: facts?.signal ?? null };
    result.stopReason = 'failed';
  } finally {
    result.toolCalls = [...calls.values()];
    await terminals.dispose();
    stdin.end();
    await settleWithin(handle.exit, ACP_CANCEL_GRACE_MS, () => undefined);
    await handle.terminate();
  }
  return result;
}
