/**
 * Who may reach a front door served over HTTP on this machine (`dsh web`, `dsh mcp --http`): a
 * request addressed to it by name (`Host`, against DNS rebinding while on loopback), from its own
 * origin, carrying its token (compared in constant time).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Host names that mean this machine's loopback. */
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A new random token of `bytes` random bytes, as hex. */
export function mintToken(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Whether `hostname` (as listened on) is a loopback address. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Constant-time comparison of a presented token with the server's. */
export function tokenMatches(presented: string, token: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a request's `Host` header addresses this server: on loopback it must be a loopback
 * name with this port (a page on another site that rebinds its name to 127.0.0.1 is refused).
 * Listening elsewhere, any name is accepted: the token still guards every request.
 */
export function hostHeaderAllowed(host: string | undefined, listenHost: string, port: number): boolean {
  if (!isLoopback(listenHost)) return true;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host ?? '');
  if (!match) return false;
  return isLoopback((match[1] as string).toLowerCase()) && Number(match[2] ?? 80) === port;
}
