/**
 * Who may reach the page: a request carries the token in its path (`/t/<token>/…`), is addressed
 * to this server by name (`Host`, against DNS rebinding while on loopback), and a WebSocket
 * comes from the page's own origin.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WEB_TOKEN_BYTES } from './limits.js';

/** A new random token. */
export function mintToken(): string {
  return randomBytes(WEB_TOKEN_BYTES).toString('hex');
}

/** Host names that mean this machine's loopback. */
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Whether `hostname` (as listened on) is a loopback address. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The token and the rest of a request path (`bare`: nothing after the token, not even a slash), or null when the path has no token part. */
export function splitPath(url: string | undefined): { token: string; rest: string; bare: boolean } | null {
  const path = (url ?? '').split('?')[0] ?? '';
  const match = /^\/t\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) return null;
  return { token: match[1] as string, rest: match[2] ?? '/', bare: match[2] === undefined };
}

/** Constant-time comparison of a presented token with the server's. */
export function tokenMatches(presented: string, token: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether the request is addressed to this server: on loopback the `Host` must be a loopback
 * name with this port (a page on another site that rebinds its name to 127.0.0.1 is refused).
 * Listening elsewhere (`--host`), any name is accepted: the token still guards every request.
 */
export function hostAllowed(req: IncomingMessage, listenHost: string, port: number): boolean {
  if (!isLoopback(listenHost)) return true;
  const host = req.headers.host ?? '';
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (!match) return false;
  return isLoopback((match[1] as string).toLowerCase()) && Number(match[2] ?? 80) === port;
}

/** Whether a WebSocket's `Origin` is the page's own (the origin its `Host` names). */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  return typeof origin === 'string' && typeof host === 'string' && origin === `http://${host}`;
}
