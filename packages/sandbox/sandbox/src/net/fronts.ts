/**
 * The two ways a program asks the world's proxy for a destination, parsed from the bytes it sends
 * first: an HTTP proxy request (`CONNECT host:port` for TLS and anything else, or an absolute-form
 * URL for plain HTTP) and a SOCKS5 `CONNECT` (no authentication; names, IPv4 and IPv6).
 */

/** The request head of an HTTP proxy request at most (request line and headers). */
export const PROXY_HEAD_MAX_BYTES = 64 * 1024;

/** What an HTTP proxy request asks for. */
export type HttpAsk =
  | { kind: 'connect'; host: string; port: number }
  /**
   * Plain HTTP: `head` is the request rewritten to origin form, to send to the destination, and
   * `bodyBytes` the body that follows it (its Content-Length); nothing after that is passed on.
   */
  | { kind: 'forward'; host: string; port: number; head: string; bodyBytes: number }
  /** Not a request the proxy serves: answered with `status` (400 unless given). */
  | { kind: 'bad'; reason: string; status?: number };

/** The end of the head (the index past its blank line) in `buf`, or -1 while it is incomplete. */
export function headEnd(buf: Buffer): number {
  const at = buf.indexOf('\r\n\r\n');
  return at < 0 ? -1 : at + 4;
}

/** `host:port` (a bracketed IPv6 host allowed), or null. */
function hostPort(text: string, defaultPort: number | null): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m) return null;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (port === null || port < 1 || port > 65535) return null;
  return { host: m[1] as string, port };
}

/** Headers that speak to the proxy, or keep a connection for another request: not passed on. */
const HOP_HEADERS = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']);

/** Parses the head of an HTTP proxy request. */
export function parseHttpAsk(head: string): HttpAsk {
  const lines = head.split('\r\n');
  const m = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(lines[0] ?? '');
  if (!m) return { kind: 'bad', reason: 'not an HTTP/1 request line' };
  const [, method, target, version] = m as unknown as [string, string, string, string];
  if (method === 'CONNECT') {
    const hp = hostPort(target, null);
    return hp ? { kind: 'connect', ...hp } : { kind: 'bad', reason: `CONNECT needs host:port, not ${target}` };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { kind: 'bad', reason: 'a proxy request names the whole URL (http://host/path)' };
  }
  if (url.protocol !== 'http:') {
    return { kind: 'bad', reason: `${url.protocol} goes through CONNECT, not as a plain request` };
  }
  const port = url.port === '' ? 80 : Number(url.port);
  const name = (line: string): string => line.split(':')[0]?.trim().toLowerCase() ?? '';
  const headers = lines.slice(1).filter((line) => line !== '');
  if (headers.some((line) => name(line) === 'transfer-encoding')) {
    return {
      kind: 'bad',
      reason: 'a plain-HTTP request body needs a Content-Length (or use HTTPS, through CONNECT)',
      status: 411,
    };
  }
  const lengths = headers
    .filter((line) => name(line) === 'content-length')
    .map((line) => line.slice(line.indexOf(':') + 1).trim());
  if (lengths.length > 1 || (lengths.length === 1 && !/^\d{1,15}$/.test(lengths[0] as string))) {
    return { kind: 'bad', reason: 'one Content-Length, a number, at most' };
  }
  // The destination is the URL's host, so the Host header says it too (no other site behind it).
  const kept = headers.filter((line) => !HOP_HEADERS.has(name(line)) && name(line) !== 'host');
  const out = [
    `${method} ${url.pathname}${url.search} ${version}`,
    `Host: ${url.host}`,
    ...kept,
    'Connection: close',
    '',
    '',
  ];
  return { kind: 'forward', host: url.hostname, port, head: out.join('\r\n'), bodyBytes: Number(lengths[0] ?? 0) };
}

/** A complete HTTP answer from the proxy itself (it closes the connection). */
export function proxyAnswer(status: number, phrase: string, body: string, extra: readonly string[] = []): string {
  const text = `${body}\n`;
  return [
    `HTTP/1.1 ${status} ${phrase}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...extra,
    '',
    text,
  ].join('\r\n');
}

/** SOCKS5 reply codes the proxy sends. */
export const SOCKS = {
  ok: 0x00,
  failure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  refused: 0x05,
  commandUnsupported: 0x07,
  addressUnsupported: 0x08,
} as const;

/** A SOCKS5 greeting in `buf`: its length and whether "no authentication" is offered; null while incomplete. */
export function socksGreeting(buf: Buffer): { length: number; noAuth: boolean } | null {
  if (buf.length < 2) return null;
  const length = 2 + (buf[1] as number);
  if (buf.length < length) return null;
  return { length, noAuth: buf.subarray(2, length).includes(0x00) };
}

/** A SOCKS5 request in `buf`; null while incomplete. */
export function socksRequest(
  buf: Buffer,
): { length: number; command: number; host: string; port: number } | { length: number; bad: number } | null {
  if (buf.length < 5) return null;
  if (buf[0] !== 0x05) return { length: buf.length, bad: SOCKS.failure };
  const type = buf[3];
  let hostEnd: number;
  let host: string;
  if (type === 0x01) {
    hostEnd = 8;
    if (buf.length < hostEnd + 2) return null;
    host = [...buf.subarray(4, 8)].join('.');
  } else if (type === 0x03) {
    hostEnd = 5 + (buf[4] as number);
    if (buf.length < hostEnd + 2) return null;
    host = buf.subarray(5, hostEnd).toString('latin1');
  } else if (type === 0x04) {
    hostEnd = 20;
    if (buf.length < hostEnd + 2) return null;
    const words: string[] = [];
    for (let i = 4; i < 20; i += 2) words.push(buf.readUInt16BE(i).toString(16));
    host = words.join(':');
  } else return { length: buf.length, bad: SOCKS.addressUnsupported };
  return { length: hostEnd + 2, command: buf[1] as number, host, port: buf.readUInt16BE(hostEnd) };
}

/** A SOCKS5 reply with `code` (bound address 0.0.0.0:0). */
export function socksReply(code: number): Buffer {
  return Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
}
