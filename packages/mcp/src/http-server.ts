/**
 * `serveMcpHttp`: the same tools over MCP Streamable HTTP (the 2025-11-25 transport, on the
 * official SDK's web-standard transport), for agents on other machines, hosted platforms and the
 * conformance suite. One MCP session is one agent: its own jobs, terminals and world, ended when
 * the client sends `DELETE`, when it stays idle past {@link MCP_HTTP_IDLE_MS}, or with the server.
 * Every request must be addressed to this server (`Host` on loopback), come from no foreign
 * `Origin`, and carry the token: `Authorization: Bearer TOKEN`, or the token in the path
 * (`/t/TOKEN/mcp`, for clients that take only a URL). A resumed stream (`Last-Event-ID`) gets
 * what it missed from a bounded store (http-events.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DshError, hostHeaderAllowed, mintToken, type Owner, tokenMatches } from '@dsh/core';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { agentServer, LIMIT_ERROR, type McpHost } from './agent-server.js';
import { ApprovalSeal } from './escalation.js';
import { BoundedEventStore } from './http-events.js';
import { modernLeg } from './http-modern.js';
import { toWebRequest, writeWebResponse } from './http-node.js';
import {
  DEFAULT_YIELD_MS,
  MCP_HTTP_BODY_MAX_BYTES,
  MCP_HTTP_IDLE_MS,
  MCP_HTTP_MAX_CONNECTIONS,
  MCP_HTTP_MAX_SESSIONS,
  MCP_HTTP_REQUEST_TIMEOUT_MS,
  MCP_HTTP_TOKEN_BYTES,
} from './limits.js';

/** What a token must look like: it goes in a URL path, and a short one is guessable. */
export const MCP_HTTP_TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,}$/;

/** The endpoint's path (after the optional `/t/TOKEN` prefix). */
export const MCP_HTTP_PATH = '/mcp';

/** Options of {@link serveMcpHttp}. */
export interface ServeMcpHttpOptions {
  /** The composition whose tools are served. */
  host: McpHost;
  /** Address to listen on; beyond loopback the token is the only guard. @default '127.0.0.1' */
  listenHost?: string;
  /** Port; 0 picks a free one. @default 0 */
  port?: number;
  /** The token every request must carry. @default a new random one */
  token?: string;
  /** A foreground bash still running after this many ms becomes a background job. @default DEFAULT_YIELD_MS */
  yieldMs?: number;
  /** A session with no request for this long ends, and its agent's processes with it. @default MCP_HTTP_IDLE_MS */
  idleMs?: number;
  /** Sessions at once; past it `initialize` is refused with 503. @default MCP_HTTP_MAX_SESSIONS */
  maxSessions?: number;
  /** Name and version the server reports. @default { name: 'dsh', version: '0.0.0' } */
  serverInfo?: { name: string; version: string };
}

/** A running HTTP server. */
export interface McpHttpServer {
  /** The endpoint with the token in its path (what a client that takes only a URL is given). */
  readonly url: string;
  /** The endpoint without the token (for clients that send `Authorization: Bearer`). */
  readonly endpoint: string;
  readonly port: number;
  readonly token: string;
  /** Sessions open now. */
  sessions(): number;
  /** Stops listening and ends every session (their agents' processes too). Idempotent. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  agent: Owner;
  release(): void;
  lastSeen: number;
  inFlight: number;
  ended: boolean;
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: LIMIT_ERROR, message } });
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

/** Whether an `Origin` header (when sent) is this server's own. */
function originAllowed(origin: string | undefined, host: string | undefined): boolean {
  return origin === undefined || (host !== undefined && origin === `http://${host}`);
}

/** The token a request carries and the path after its `/t/TOKEN` prefix. */
function presented(req: IncomingMessage): { token: string | null; path: string } {
  let raw = (req.url ?? '').split('?')[0] ?? '';
  if (/^https?:\/\//i.test(raw)) raw = new URL(raw).pathname; // the absolute form a proxy may send
  const inPath = /^\/t\/([^/]+)(\/.*)$/.exec(raw);
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
  return inPath ? { token: inPath[1] as string, path: inPath[2] as string } : { token: bearer, path: raw };
}

function positive(value: number | undefined, fallback: number, field: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) {
    throw new DshError('INVALID_ARGUMENT', `serveMcpHttp option "${field}" must be a positive integer.`, {
      data: { field },
    });
  }
  return v;
}

/**
 * Serves `options.host`'s tools over MCP Streamable HTTP.
 * @throws DshError `INVALID_ARGUMENT` for a bad option; the listen error (e.g. `EADDRINUSE`) as thrown by Node.
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<McpHttpServer> {
  const { host } = options;
  if (!host?.tools || typeof host.createAgent !== 'function') {
    throw new DshError('INVALID_ARGUMENT', 'serveMcpHttp needs { host } with tools.list/tools.call and createAgent.');
  }
  const listenHost = options.listenHost ?? '127.0.0.1';
  const yieldMs = positive(options.yieldMs, DEFAULT_YIELD_MS, 'yieldMs');
  const idleMs = positive(options.idleMs, MCP_HTTP_IDLE_MS, 'idleMs');
  const maxSessions = positive(options.maxSessions, MCP_HTTP_MAX_SESSIONS, 'maxSessions');
  const token = options.token ?? mintToken(MCP_HTTP_TOKEN_BYTES);
  if (!MCP_HTTP_TOKEN_PATTERN.test(token)) {
    throw new DshError('INVALID_ARGUMENT', 'the MCP HTTP token must be at least 16 URL-safe characters.', {
      data: { field: 'token' },
    });
  }
  const info = options.serverInfo ?? { name: 'dsh', version: '0.0.0' };
  const seal = new ApprovalSeal();
  const modern = modernLeg({ host, seal, yieldMs, info, maxRequestBodySize: MCP_HTTP_BODY_MAX_BYTES });
  const sessions = new Map<string, Session>();
  let opening = 0;
  let count = 0;
  let port = 0;

  const end = async (id: string): Promise<void> => {
    const s = sessions.get(id);
    if (!s || s.ended) return;
    s.ended = true;
    sessions.delete(id);
    s.release();
    await s.transport.close().catch(() => undefined);
    await host.endAgent?.(s.agent).catch(() => undefined);
  };

  const open = async (req: Request, parsed: unknown): Promise<Response> => {
    if ((parsed as { method?: unknown } | undefined)?.method !== 'initialize') {
      return Response.json(
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'No Mcp-Session-Id: POST an initialize request first.' },
        },
        { status: 400 },
      );
    }
    if (sessions.size + opening >= maxSessions) {
      return new Response(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: LIMIT_ERROR,
            message: `${maxSessions} sessions are open (at most ${maxSessions}); end one (DELETE) or wait for an idle one to expire.`,
            data: { code: 'RESOURCE_EXHAUSTED', limit: 'sessions', max: maxSessions },
          },
        }),
        { status: 503, headers: { 'content-type': 'application/json' } },
      );
    }
    opening++;
    const agent = host.createAgent(`mcp-http-${++count}`);
    const made = agentServer({ host, agent, seal, yieldMs, info });
    const session: Session = {
      transport: undefined as never,
      agent,
      release: made.release,
      lastSeen: Date.now(),
      inFlight: 0,
      ended: false,
    };
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(),
      maxRequestBodySize: MCP_HTTP_BODY_MAX_BYTES,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
      },
      onsessionclosed: (id) => end(id),
    });
    try {
      await made.server.connect(session.transport);
      const response = await session.transport.handleRequest(req, { parsedBody: parsed });
      if (!session.transport.sessionId) {
        made.release(); // not an initialize the transport accepted: nothing was opened
        await session.transport.close().catch(() => undefined);
        await host.endAgent?.(agent).catch(() => undefined);
      }
      return response;
    } finally {
      opening--;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostHeaderAllowed(req.headers.host, listenHost, port)) {
      return refuse(res, 403, 'Forbidden: address this server by its loopback name and port (DNS rebinding guard).');
    }
    if (!originAllowed(req.headers.origin, req.headers.host)) {
      return refuse(res, 403, 'Forbidden: requests from another origin are refused.');
    }
    const { token: given, path } = presented(req);
    if (path !== MCP_HTTP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}.`);
    if (given === null || !tokenMatches(given, token)) {
      return refuse(res, 401, 'Unauthorized: send Authorization: Bearer TOKEN (the token dsh printed at start).', {
        'www-authenticate': 'Bearer realm="dsh"',
      });
    }
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const url = `http://${req.headers.host ?? 'localhost'}${MCP_HTTP_PATH}`;
    const converted = await toWebRequest(req, url, gone.signal);
    if ('tooLarge' in converted) return refuse(res, 413, `Request body over ${MCP_HTTP_BODY_MAX_BYTES} bytes.`);
    if (Array.isArray(converted.parsed)) {
      return refuse(
        res,
        400,
        'JSON-RPC batches are not supported (MCP 2025-11-25 has none): send one message per request.',
      );
    }
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    let response: Response;
    if (session) {
      session.inFlight++;
      session.lastSeen = Date.now();
      try {
        response = await session.transport.handleRequest(converted.request, { parsedBody: converted.parsed });
      } finally {
        session.inFlight--;
        session.lastSeen = Date.now();
      }
    } else if (typeof id === 'string') {
      return refuse(res, 404, 'Session not found (it ended or expired): initialize a new session.');
    } else if (await modern.claims(converted.request, converted.parsed)) {
      response = await modern.serve(converted.request, converted.parsed);
    } else if (req.method === 'POST') {
      response = await open(converted.request, converted.parsed);
    } else {
      return refuse(res, 400, 'Bad request: no Mcp-Session-Id; POST an initialize request first.');
    }
    await writeWebResponse(response, res, session);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) refuse(res, 500, `Internal error: ${String((error as Error)?.message ?? error)}`);
      else res.destroy();
    });
  });
  // Bounds for clients that open connections and never finish a request: a connection cap
  // (descriptors are shared with the agents' processes) and deadlines for headers and bodies.
  server.maxConnections = MCP_HTTP_MAX_CONNECTIONS;
  server.headersTimeout = MCP_HTTP_REQUEST_TIMEOUT_MS;
  server.requestTimeout = MCP_HTTP_REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, listenHost, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  // A session is idle once nothing of it is in flight (an open event stream counts) for idleMs.
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) if (s.inFlight === 0 && now - s.lastSeen >= idleMs) void end(id);
    },
    Math.max(50, Math.min(idleMs / 4, 30_000)),
  );
  sweep.unref();
  const where = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${where}:${port}/t/${token}${MCP_HTTP_PATH}`,
    endpoint: `http://${where}:${port}${MCP_HTTP_PATH}`,
    port,
    token,
    sessions: () => sessions.size,
    close: () => {
      closing ??= (async () => {
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...sessions.keys()].map((id) => end(id)));
        await modern.close();
        server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}
