/**
 * Node's HTTP messages to and from the web-standard ones the SDK's transport takes: a request's
 * body read whole (bounded) and parsed once, a response's body streamed back with backpressure,
 * and a client that goes away aborting the request it made (the caller's signal).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_HTTP_BODY_MAX_BYTES } from './limits.js';

/** The body of `req`, or null when it is over the bound (the rest is not read). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MCP_HTTP_BODY_MAX_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * The web request for `req` at `url` and its parsed JSON body (undefined when there is none or it
 * is not JSON: the transport then answers the parse error itself), or `tooLarge`.
 */
export async function toWebRequest(
  req: IncomingMessage,
  url: string,
  signal: AbortSignal,
): Promise<{ request: Request; parsed: unknown } | { tooLarge: true }> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  if (req.method !== 'POST') {
    return { request: new Request(url, { method: req.method ?? 'GET', headers, signal }), parsed: undefined };
  }
  const body = await readBody(req);
  if (body === null) return { tooLarge: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const request = new Request(url, { method: 'POST', headers, body, signal });
  return { request, parsed };
}

/**
 * Writes `response` to `res`, streaming its body; `busy` counts the stream as in flight while it
 * is open (an open event stream keeps its session from expiring).
 */
export async function writeWebResponse(
  response: Response,
  res: ServerResponse,
  busy?: { inFlight: number; lastSeen: number },
): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders(); // an event stream is open for the client now, not at its first event
  if (busy) busy.inFlight++;
  const reader = response.body.getReader();
  const stop = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) break;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', stop);
    if (busy) {
      busy.inFlight--;
      busy.lastSeen = Date.now();
    }
  }
}
