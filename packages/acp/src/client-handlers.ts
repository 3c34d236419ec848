/**
 * The client side an ACP agent talks to: its session updates gathered into the current turn
 * (message, plan, tool calls), its file requests served within the sandbox mode, its permission
 * requests through the approver, and v1 terminals backed by ctx.shell.
 */
import { randomBytes } from 'node:crypto';
import { client, methods } from '@agentclientprotocol/sdk';
import { decide, type EscalationRequest } from '@dsh/core';
import type { AgentFiles } from './files.js';
import type { AgentTaskResult, TaskContext } from './session.js';
import type { AcpTerminals } from './terminals.js';

/** What one turn gathers. */
export interface TurnState {
  result: AgentTaskResult;
  calls: Map<string, { id: string; title: string; status: string }>;
  onUpdate?: ((live: AgentTaskResult) => void) | undefined;
  /** Decides this turn's permission requests. @default the task's approver, else rejected */
  permit?: ((request: EscalationRequest) => Promise<boolean>) | undefined;
}

/** The ACP client app for `task`; `current` is the turn running now (null between turns). */
export function clientApp(
  task: TaskContext,
  files: AgentFiles,
  terminals: AcpTerminals,
  current: () => TurnState | null,
) {
  return client({ name: 'dsh' })
    .onNotification(methods.client.session.update, ({ params }) => {
      const turn = current();
      if (!turn) return; // between turns: nothing to gather
      const { result, calls } = turn;
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
      turn.onUpdate?.(result);
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
      const mode = task.sandbox?.mode ?? 'danger-full-access';
      const request: EscalationRequest = {
        agent: task.agentName,
        tool: 'agent_task',
        command: params.toolCall.title ?? params.toolCall.toolCallId,
        justification: `The sub-agent ${task.agentName} asks permission`,
        from: mode,
        to: mode,
        kind: 'permission',
        choices: { approve: allow?.name ?? 'allow', decline: reject?.name ?? 'reject' },
        id: randomBytes(8).toString('hex'),
      };
      const permit = current()?.permit;
      const approved = permit ? await permit(request) : (await decide(task.approver, request)).approved; // asking and waiting needs a call: pending is no
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
}
