/**
 * `serveMcp`: one composition's tools over MCP stdio, on the official SDK's dual-era entry
 * (`serveStdio`): clients that open with the 2025-11-25 `initialize` handshake and clients of
 * the 2026-07-28 stateless revision are both served. One connection is one agent (owner).
 * Calls run concurrently; each result carries the rendered text (`content`), `isError`, and the
 * machine facts (`structuredContent`, valid against the tool's `outputSchema`). The server
 * itself is agent-server.ts; http-server.ts serves the same over Streamable HTTP.
 */
import type { Readable, Writable } from 'node:stream';
import { DshError, type Owner } from '@dsh/core';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { agentServer, type McpHost } from './agent-server.js';
import { ApprovalSeal } from './escalation.js';
import { DEFAULT_YIELD_MS } from './limits.js';
import { LineTransport } from './transport.js';

export type { McpHost } from './agent-server.js';

/** Options of {@link serveMcp}. */
export interface ServeMcpOptions {
  /** The composition whose tools are served. */
  host: McpHost;
  /** A foreground bash still running after this many ms becomes a background job. @default DEFAULT_YIELD_MS (45000) */
  yieldMs?: number;
  /**
   * Whether a person is behind the client: false for a program's client (a sub-agent given dsh's
   * tools), which is then never asked, whatever it declares, so no escalation is ever approved
   * through it. @default true
   */
  personBehind?: boolean;
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
  const released: (() => void)[] = [];
  const handle = serveStdio(
    () => {
      const made = agentServer({ host, agent, seal, yieldMs, info, personBehind: options.personBehind !== false });
      released.push(made.release);
      return made.server;
    },
    { transport, onerror: () => undefined },
  );
  void transport.closed.then(() => {
    for (const release of released.splice(0)) release();
  });
  return {
    agent,
    closed: transport.closed,
    close: async () => {
      await handle.close();
      await transport.close();
    },
  };
}
