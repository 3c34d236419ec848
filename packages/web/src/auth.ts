/**
 * Who may reach the page: a request carries the token in its path (`/t/<token>/…`), is addressed
 * to this server by name (`Host`, against DNS rebinding while on loopback), and a WebSocket
 * comes from the page's own origin.
 */

import type { IncomingMessage } from 'node:http';
import { hostHeaderAllowed, isLoopback, mintToken as mint, tokenMatches } from '@dsh/core';
import { WEB_TOKEN_BYTES } from './limits.js';

export { isLoopback, tokenMatches };

/** A new random token. */
export function mintToken(): string {
  return mint(WEB_TOKEN_BYTES);
}

/** The token and the rest of a request path (`bare`: nothing after the token, not even a slash), or null when the path has no token part. */
export function splitPath(url: string | undefined): { token: string; rest: string; bare: boolean } | null {
  const path = (url ?? '').split('?')[0] ?? '';
  const match = /^\/t\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) return null;
  return { token: match[1] as string, rest: match[2] ?? '/', bare: match[2] === undefined };
}

/**
 * Whether the request is addressed to this server: on loopback the `Host` must be a loopback
 * name with this port (a page on another site that rebinds its name to 127.0.0.1 is refused).
 * Listening elsewhere (`--host`), any name is accepted: the token still guards every request.
 */
export function hostAllowed(req: IncomingMessage, listenHost: string, port: number): boolean {
  return hostHeaderAllowed(req.headers.host, listenHost, port);
}

/** Whether a WebSocket's `Origin` is the page's own (the origin its `Host` names). */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  return typeof origin === 'string' && typeof host === 'string' && origin === `http://${host}`;
}
