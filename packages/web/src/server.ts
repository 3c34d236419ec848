/**
 * `serveWeb`: the page for a person, over HTTP and one WebSocket per page, for a running
 * composition. It listens on loopback unless told otherwise, and every request needs the
 * random token in the URL it prints. Closing a page ends nothing; `close()` stops the server
 * (the composition stays: its owner disposes it).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { DshError, settleWithin } from '@dsh/core';
import { WebSocketServer } from 'ws';
import { hostAllowed, mintToken, originAllowed, splitPath, tokenMatches } from './auth.js';
import type { WebHost } from './host.js';
import { pageHandler } from './http.js';
import { WebHub } from './hub.js';
import {
  WEB_CLOSE_GRACE_MS,
  WEB_DEFAULT_HOST,
  WEB_DEFAULT_PORT,
  WEB_MAX_CLIENTS,
  WEB_MESSAGE_MAX_BYTES,
} from './limits.js';

/** Options of {@link serveWeb}. */
export interface WebOptions {
  /** The composition shown (a `Dsh` from `compose()`). */
  host: WebHost;
  /** Port to listen on; 0 lets the system pick a free one. @default 0 */
  port?: number;
  /** Address to listen on. Anything but loopback lets other machines reach the page (the token still guards it). @default '127.0.0.1' */
  hostname?: string;
  /** Whether the page may type into terminals, open and close them, and run commands; false makes it read-only. @default true */
  input?: boolean;
  /** The name of the agent the page acts as (its terminals and commands). @default 'web' */
  agentName?: string;
  /** What the page's header calls this composition. @default 'dsh web' */
  title?: string;
  /** The access token; a random one unless given (tests). @default 24 random bytes, hex */
  token?: string;
}

/** A running web server. */
export interface WebServer {
  /** The URL to open, token included. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Pages connected now. */
  readonly pages: number;
  /** Stops serving and disconnects every page. Idempotent. */
  close(): Promise<void>;
}

function refuse(socket: Socket, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
}

/**
 * Serves the page for `options.host`.
 * @throws DshError `INVALID_ARGUMENT` (a bad port or token), `WEB_LISTEN_FAILED` (the port is taken, the address is not this machine's).
 */
export async function serveWeb(options: WebOptions): Promise<WebServer> {
  const port = options.port ?? WEB_DEFAULT_PORT;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
    throw new DshError('INVALID_ARGUMENT', 'the web port must be an integer in [0, 65535].', {
      data: { field: 'port' },
    });
  }
  const listenHost = options.hostname ?? WEB_DEFAULT_HOST;
  const token = options.token ?? mintToken();
  if (!/^[A-Za-z0-9_-]{16,}$/.test(token)) {
    throw new DshError('INVALID_ARGUMENT', 'a web token needs 16 or more letters, digits, - or _.', {
      data: { field: 'token' },
    });
  }
  let bound = port;
  const http = createServer(pageHandler(token, listenHost, () => bound));
  const hub = new WebHub(options.host, {
    input: options.input ?? true,
    agentName: options.agentName ?? 'web',
    title: options.title ?? 'dsh web',
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: WEB_MESSAGE_MAX_BYTES });
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const parts = splitPath(req.url);
    if (parts?.rest !== '/ws' || !tokenMatches(parts.token, token)) return refuse(socket, 401, 'Unauthorized');
    if (!hostAllowed(req, listenHost, bound) || !originAllowed(req)) return refuse(socket, 403, 'Forbidden');
    if (hub.size >= WEB_MAX_CLIENTS) return refuse(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(req, socket, head, (ws) => hub.attach(ws));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new DshError(
          'WEB_LISTEN_FAILED',
          `dsh web cannot listen on ${listenHost}:${port}: ${error.message}; pick another --port or --host.`,
          {
            cause: error,
            data: { host: listenHost, port },
          },
        ),
      ),
    );
    http.listen(port, listenHost, () => resolve());
  });
  const address = http.address();
  bound = typeof address === 'object' && address ? address.port : port;
  const shownHost = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${bound}/t/${token}/`,
    port: bound,
    token,
    get pages() {
      return hub.size;
    },
    close() {
      // Pages get a close frame, then their sockets are cut: closing never waits on a page.
      closing ??= settleWithin(
        new Promise<void>((resolve) => {
          hub.close();
          wss.close();
          http.close(() => resolve());
          http.closeAllConnections();
        }),
        WEB_CLOSE_GRACE_MS * 5,
        () => undefined,
      );
      return closing;
    },
  };
}
