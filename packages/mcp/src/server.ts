/**
 * `serveMcp`: one composition's tools over MCP stdio, on the official SDK's dual-era entry
 * (`serveStdio`): clients that open with the 2025-11-25 `initialize` handshake and clients of
 * the 2026-07-28 stateless revision are both served. One connection is one agent (owner).
 * Calls run concurrently; each result carries the rendered text (`content`), `isError`, and the
 * machine facts (`structuredContent`, valid against the tool's `outputSchema`).
 */
import type { Readable, Writable } from 'node:stream';
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
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { ApprovalRound, ApprovalSeal } from './escalation.js';
import { DEFAULT_YIELD_MS, PROGRESS_LINE_MAX_CHARS, PROGRESS_MIN_INTERVAL_MS } from './limits.js';
import { LineTransport } from './transport.js';

/** What the server needs of a composition (dsh's `compose()` result has it). */
export interface McpHost {
  tools: {
    list(): ToolInfo[];
    call(agent: Owner, name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  };
  createAgent(name: string): Owner;
}

/** Options of {@link serveMcp}. */
export interface ServeMcpOptions {
  /** The composition whose tools are served. */
  host: McpHost;
  /** A foreground bash still running after this many ms becomes a background job. @default DEFAULT_YIELD_MS (45000) */
  yieldMs?: number;
  /** Name and version the server reports. @default { name: 'dsh', version: '0.0.0' } */
  serverInfo?: { name: string; version: string };
  /** Display name of the connection's agent. @default 'mcp' */
  agentName?: string;
  /** Where requests come from. @default process.stdin */
  input?: Readable;
  /** Where responses go; nothing else is ever written to it. @default process.stdout */
  output?: Writable;
}

/** A running server. */
export interface McpServerHandle {
  /** The connection's agent: every job and terminal it opens belongs to it. */
  readonly agent: Owner;
  /** Resolves when the client closed its end (stdin EOF) or {@link close} was called. */
  readonly closed: Promise<void>;
  /** Stops serving (in-flight calls are aborted by the SDK). Idempotent. */
  close(): Promise<void>;
}

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

/**
 * Serves `options.host`'s tools over MCP on stdio (or the given streams).
 * @throws DshError `INVALID_ARGUMENT` for a bad option.
 */
export function serveMcp(options: ServeMcpOptions): McpServerHandle {
  const { host } = options;
  if (!host?.tools || typeof host.tools.call !== 'function' || typeof host.createAgent !== 'function') {
    throw new DshError('INVALID_ARGUMENT', 'serveMcp needs { host } with tools.list/tools.call and createAgent.');
  }
  const yieldMs = options.yieldMs ?? DEFAULT_YIELD_MS;
  if (!Number.isSafeInteger(yieldMs) || yieldMs < 1) {
    throw new DshError('INVALID_ARGUMENT', 'serveMcp option "yieldMs" must be a positive integer of milliseconds.', {
      data: { field: 'yieldMs' },
    });
  }
  const agent = host.createAgent(options.agentName ?? 'mcp');
  const seal = new ApprovalSeal();
  const info = options.serverInfo ?? { name: 'dsh', version: '0.0.0' };
  const transport = new LineTransport(options.input, options.output);
  const handle = serveStdio(
    () => {
      const server = new Server(info, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', async (request) => {
        // Every tool fits one page: no cursor this server handed out exists.
        const cursor = (request.params as { cursor?: unknown } | undefined)?.cursor;
        if (cursor !== undefined) {
          throw new ProtocolError(
            INVALID_PARAMS,
            'Invalid cursor: tools/list has one page; list again without a cursor.',
          );
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
        const approval = new ApprovalRound(seal, {
          canAsk: canElicit(server, ctx),
          responses: ctx.mcpReq.inputResponses,
          state: ctx.mcpReq.requestState<string>(),
        });
        const progress = progressOf(ctx);
        const result = await host.tools.call(agent, name, request.params.arguments ?? {}, {
          signal: ctx.mcpReq.signal,
          yieldMs,
          approve: approval.approve,
          ...(progress ? { progress } : {}),
        });
        if (approval.asked) return approval.result();
        // An unknown tool is a protocol error (the spec's -32602), not a tool result.
        if ((result.data.error as { code?: string } | undefined)?.code === 'UNKNOWN_TOOL') {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
        }
        return {
          content: [{ type: 'text' as const, text: result.text }],
          structuredContent: result.data,
          isError: result.isError,
        };
      });
      return server;
    },
    { transport, onerror: () => undefined },
  );
  return {
    agent,
    closed: transport.closed,
    close: async () => {
      await handle.close();
      await transport.close();
    },
  };
}
