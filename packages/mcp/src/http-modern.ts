/**
 * The 2026-07-28 revision over HTTP: its requests carry their protocol version and the client's
 * capabilities in `_meta` and open no session, so each is served by a fresh server instance (the
 * SDK's per-request handler). Those clients have no session to tell them apart: all of them that
 * hold this server's token are one agent, whose jobs and terminals they share, ended with the
 * server. The 2025-11-25 sessions (http-server.ts) are unchanged beside it.
 */
import type { Owner } from '@dsh/core';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import { agentServer, type McpHost } from './agent-server.js';
import type { ApprovalSeal } from './escalation.js';

/** The agent name of this server's 2026-07-28 clients. */
export const MODERN_AGENT_NAME = 'mcp-http-modern';

/** What serves the 2026-07-28 requests of one HTTP server. */
export interface ModernLeg {
  /** Whether a request without a session belongs to the 2026-07-28 revision. */
  claims(request: Request, parsed: unknown): Promise<boolean>;
  /** Serves one such request. */
  serve(request: Request, parsed: unknown): Promise<Response>;
  /** Ends its in-flight exchanges and its agent. */
  close(): Promise<void>;
}

/** The 2026-07-28 leg over `host`, its answers sealed by `seal` like the sessions'. */
export function modernLeg(options: {
  host: McpHost;
  seal: ApprovalSeal;
  yieldMs: number;
  info: { name: string; version: string };
  maxRequestBodySize: number;
}): ModernLeg {
  const { host, seal, yieldMs, info, maxRequestBodySize } = options;
  let agent: Owner | undefined;
  const handler = createMcpHandler(
    () => {
      agent ??= host.createAgent(MODERN_AGENT_NAME);
      const made = agentServer({ host, agent, seal, yieldMs, info });
      made.server.onclose = made.release; // one instance per request: released as its exchange ends
      return made.server;
    },
    { legacy: 'reject', maxRequestBodySize, onerror: () => undefined },
  );
  return {
    async claims(request, parsed) {
      return request.method === 'POST' && !(await isLegacyRequest(request, parsed, { maxRequestBodySize }));
    },
    serve: (request, parsed) => handler.fetch(request, { parsedBody: parsed }),
    async close() {
      await handler.close().catch(() => undefined);
      if (agent) await host.endAgent?.(agent).catch(() => undefined);
    },
  };
}
