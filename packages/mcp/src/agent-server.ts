/**
 * One MCP server instance serving one agent's tools: what both front doors (stdio, HTTP) connect
 * to a transport. `tools/list` (one page), `tools/call` (concurrent, at most
 * {@link MAX_CALLS_AT_ONCE} per agent), escalation by elicitation, progress, and the `logging`
 * capability: the client's `logging/setLevel` is honoured, and server-side events the model did
 * not ask about (a background job of this agent that ended) come as `notifications/message`.
 */
import {
  DshError,
  type Owner,
  type ProgressReport,
  type ToolCallOptions,
  type ToolInfo,
  type ToolResult,
} from '@dsh/core';
import {
  INVALID_PARAMS,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ApprovalRound, type ApprovalSeal } from './escalation.js';
import { MAX_CALLS_AT_ONCE, PROGRESS_LINE_MAX_CHARS, PROGRESS_MIN_INTERVAL_MS } from './limits.js';

/** A job of an agent that ended, as the host tells it. */
export interface EndedJob {
  id: string;
  title: string;
  state: string;
  result: { ok: boolean; data: Record<string, unknown> } | null;
}

/** What the server needs of a composition (dsh's `compose()` result has it). */
export interface McpHost {
  tools: {
    list(): ToolInfo[];
    call(agent: Owner, name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  };
  createAgent(name: string): Owner;
  /** Ends everything an agent holds (jobs, terminals, its world); the HTTP door calls it when a session ends. */
  endAgent?(agent: Owner): Promise<void>;
  /** Calls `listener` when any agent's background job ends; returns the unsubscribe. */
  onJobEnd?(listener: (owner: Owner, job: EndedJob) => void): () => void;
}

/** What one agent's server is made of. */
export interface AgentServerOptions {
  host: McpHost;
  agent: Owner;
  seal: ApprovalSeal;
  yieldMs: number;
  info: { name: string; version: string };
  /** False: the client is a program, never asked (escalations are denied). @default true */
  personBehind?: boolean;
}

/** The JSON-RPC error code of a refused call over a limit (the spec's server-error range). */
export const LIMIT_ERROR = -32000;
/** The `_meta` key a 2026-07-28 request declares its client's capabilities under. */
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** The client declared form elicitation for this request (`elicitation: {}` counts as form). */
function canElicit(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const fromEnvelope = envelope?.[CLIENT_CAPABILITIES_META] as { elicitation?: Record<string, unknown> } | undefined;
  const caps = fromEnvelope ?? server.getClientCapabilities();
  const elicitation = caps?.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  return 'form' in elicitation || Object.keys(elicitation).length === 0;
}

/** A progress sender for the request, throttled; undefined when the client sent no token. */
function progressOf(ctx: ServerContext): ((report: ProgressReport) => void) | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = 0;
  return (report) => {
    const now = Date.now();
    if (now - last < PROGRESS_MIN_INTERVAL_MS) return;
    last = now;
    const line = report.lastLine.slice(0, PROGRESS_LINE_MAX_CHARS);
    const message = `${Math.round(report.elapsedMs / 1000)} s${line ? `: ${line}` : ''}`;
    void ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: report.elapsedMs, message },
      })
      .catch(() => undefined);
  };
}

/** The line a model reads for a job that ended between its calls. */
function jobEndedLine(job: EndedJob): string {
  const code = job.result?.data.exit_code;
  const how = typeof code === 'number' ? `${job.state} (exit code ${code})` : job.state;
  return `background job ${job.id} (${job.title}) ${how}; job_output ${job.id} reads its output`;
}

/** A server for one agent, and its teardown (unsubscribes its event feeds). */
export function agentServer(options: AgentServerOptions): { server: Server; release(): void } {
  const { host, agent, seal, yieldMs, info } = options;
  const server = new Server(info, { capabilities: { tools: {}, logging: {} } });
  let running = 0;
  server.setRequestHandler('tools/list', async (request) => {
    // Every tool fits one page: no cursor this server handed out exists.
    const cursor = (request.params as { cursor?: unknown } | undefined)?.cursor;
    if (cursor !== undefined) {
      throw new ProtocolError(INVALID_PARAMS, 'Invalid cursor: tools/list has one page; list again without a cursor.');
    }
    return {
      tools: host.tools.list().map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        outputSchema: t.outputSchema as { type: 'object' },
        annotations: t.annotations,
      })),
    };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    if (running >= MAX_CALLS_AT_ONCE) {
      const error = new DshError(
        'RESOURCE_EXHAUSTED',
        `${running} calls of this agent are running (at most ${MAX_CALLS_AT_ONCE} at once); wait for one to end, or run long commands with run_in_background.`,
        { data: { limit: 'calls', max: MAX_CALLS_AT_ONCE } },
      );
      throw new ProtocolError(LIMIT_ERROR, error.message, { code: error.code, ...error.data });
    }
    running++;
    try {
      const approval = new ApprovalRound(seal, {
        canAsk: canElicit(server, ctx),
        ...(options.personBehind === false ? { noPerson: true } : {}),
        responses: ctx.mcpReq.inputResponses,
        state: ctx.mcpReq.requestState<string>(),
      });
      const progress = progressOf(ctx);
      const result = await host.tools.call(agent, name, request.params.arguments ?? {}, {
        signal: ctx.mcpReq.signal,
        yieldMs,
        approve: approval.approve,
        answered: approval.answered,
        answering: approval.answering,
        ...(progress ? { progress } : {}),
      });
      // Only a call that stopped to ask returns the question (a task that went on as a job did not).
      const code = (result.data.error as { code?: string } | undefined)?.code;
      if (approval.asked && code === 'ESCALATION_PENDING') return approval.result();
      // An unknown tool is a protocol error (the spec's -32602), not a tool result.
      if (code === 'UNKNOWN_TOOL') {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      return {
        content: [{ type: 'text' as const, text: result.text }],
        structuredContent: result.data,
        isError: result.isError,
      };
    } finally {
      running--;
    }
  });
  const unsubscribe =
    host.onJobEnd?.((owner, job) => {
      if (owner !== agent) return;
      // The session id picks the level the client set (HTTP keeps one per session; stdio has none).
      const session = (server.transport as { sessionId?: string } | undefined)?.sessionId;
      void server
        .sendLoggingMessage(
          {
            level: job.result?.ok === false || job.state !== 'succeeded' ? 'warning' : 'info',
            logger: 'dsh.jobs',
            data: { event: 'job_ended', job: job.id, title: job.title, state: job.state, message: jobEndedLine(job) },
          },
          session,
        )
        .catch(() => undefined);
    }) ?? (() => undefined);
  return { server, release: unsubscribe };
}
