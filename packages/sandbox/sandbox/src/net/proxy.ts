/**
 * A world's network proxy (issue 24), on the host side of the fence: one unix socket per world,
 * bound into the world, that speaks HTTP (CONNECT and absolute-form) and SOCKS5 on the same
 * socket (told apart by the first byte). Every destination is decided by the world's rules and
 * reached only through gate.ts; a refusal answers the program plainly (HTTP 403 naming the host,
 * SOCKS reply 0x02) and is counted, so the run's result can say what was refused.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import {
  headEnd,
  PROXY_HEAD_MAX_BYTES,
  parseHttpAsk,
  proxyAnswer,
  SOCKS,
  socksGreeting,
  socksReply,
  socksRequest,
} from './fronts.js';
import { type NetResolver, reach, systemResolver } from './gate.js';
import type { HostRules } from './rules.js';
import { joinSockets } from './tunnel.js';

/** Connections at once per world (more wait for none: they are answered 503 / SOCKS failure). */
export const PROXY_MAX_CONNECTIONS = 256;
/** A connection with no bytes either way for this long is closed. */
export const PROXY_IDLE_MS = 5 * 60_000;
/** Records of connections kept in memory per world (the oldest go first; the session log keeps all). */
export const PROXY_RECORDS_MAX = 1000;

/** One connection the proxy was asked for. */
export interface NetRecord {
  /** When it was asked for (epoch ms). */
  at: number;
  host: string;
  port: number;
  via: 'http' | 'connect' | 'socks';
  allowed: boolean;
  /** Why it was refused or failed (null when it went through). */
  reason: string | null;
  /** True when the policy refused it (not a failure of the destination). */
  refused: boolean;
  /** Bytes sent to the destination and received from it. */
  sent: number;
  received: number;
  /**
   * Whether one command alone was running in the world when it was asked for (so the refusal is
   * that command's); false when several were. @default true
   */
  sole?: boolean;
}

/** Options of {@link NetworkProxy}. */
export interface NetworkProxyOptions {
  rules: HostRules;
  /** @default the machine's resolver */
  resolver?: NetResolver;
  /** @default PROXY_MAX_CONNECTIONS */
  maxConnections?: number;
  /** @default PROXY_IDLE_MS */
  idleMs?: number;
  /** Bytes each way at most per connection; null: no limit. @default null */
  maxBytesPerConnection?: number | null;
  /** Told of every connection once it ended (or was refused). @default none */
  onRecord?: (record: NetRecord) => void;
  /** How a refusal tells the fix (the world's words: a flag, a config key); `reason` is why it was refused. */
  fixFor?: (host: string, reason: string) => string;
}

/** A world's proxy. */
export class NetworkProxy {
  private readonly server: Server;
  /** The programs' connections (the limit counts these) and the destinations' ones. */
  private readonly live = new Set<Socket>();
  private readonly upstreams = new Set<Socket>();
  private readonly kept: NetRecord[] = [];
  private refusedCount = 0;
  private path: string | null = null;

  private readonly resolver: NetResolver;

  constructor(private readonly options: NetworkProxyOptions) {
    this.resolver = options.resolver ?? systemResolver;
    this.server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
    this.server.on('error', () => undefined);
  }

  /** Binds the unix socket at `path` (synchronously: it exists when this returns). */
  listen(path: string): void {
    rmSync(path, { force: true });
    this.server.listen(path);
    this.path = path;
  }

  /** Refusals so far (a run compares the count before and after). */
  refusals(): number {
    return this.refusedCount;
  }

  /** Refusals after the first `count` (the newest kept ones). */
  refusalsSince(count: number): NetRecord[] {
    const refused = this.kept.filter((r) => r.refused);
    return refused.slice(Math.max(0, refused.length - (this.refusedCount - count)));
  }

  /** Connections recorded (newest last, at most {@link PROXY_RECORDS_MAX}). */
  records(): readonly NetRecord[] {
    return this.kept;
  }

  /** Stops listening and ends every connection. Idempotent. */
  close(): Promise<void> {
    for (const s of [...this.live, ...this.upstreams]) s.destroy();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      if (this.path) rmSync(this.path, { force: true });
      this.path = null;
    });
  }

  private record(raw: NetRecord): void {
    // The name comes from the program's bytes: no control characters reach a log or a model.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: those are what is removed
    const r = { ...raw, host: raw.host.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?') };
    if (r.refused) this.refusedCount++;
    this.kept.push(r);
    if (this.kept.length > PROXY_RECORDS_MAX) this.kept.shift();
    this.options.onRecord?.(r);
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.live.size >= (this.options.maxConnections ?? PROXY_MAX_CONNECTIONS)) {
      client.end(proxyAnswer(503, 'Service Unavailable', 'dsh: too many connections through the proxy at once; retry'));
      return;
    }
    this.live.add(client);
    client.once('close', () => this.live.delete(client));
    client.setTimeout(this.options.idleMs ?? PROXY_IDLE_MS, () => client.destroy());
    const c: Asking = { client, buf: Buffer.alloc(0), stage: 'first', busy: false, detach: () => undefined };
    const onData = (chunk: Buffer): void => {
      c.buf = Buffer.concat([c.buf, chunk]);
      if (c.buf.length > PROXY_HEAD_MAX_BYTES) client.destroy();
      else if (!c.busy) void this.advance(c);
    };
    c.detach = () => client.off('data', onData);
    // Ended before it asked (the socket is half-open): nothing will come.
    client.once('end', () => {
      if (c.stage !== 'done') client.destroy();
    });
    client.on('data', onData);
  }

  /** Goes on with a connection's set-up while its bytes allow; hands it over once it asked. */
  private async advance(c: Asking): Promise<void> {
    c.busy = true;
    try {
      for (;;) {
        const before = c.stage;
        if (c.stage === 'first' && c.buf.length > 0) {
          if (c.buf[0] === 0x04) {
            c.client.destroy(); // SOCKS4 carries no names to check against the rules
            return;
          }
          c.stage = c.buf[0] === 0x05 ? 'socks-greeting' : 'http';
        }
        if (c.stage === 'http') await this.http(c);
        else if (c.stage === 'socks-greeting') this.socksGreet(c);
        else if (c.stage === 'socks-request') await this.socksAsk(c);
        if (c.stage === before || c.stage === 'done') return;
      }
    } finally {
      c.busy = false;
    }
  }

  /** Stops reading for the set-up: what follows belongs to the destination. */
  private handOver(c: Asking): Buffer {
    c.stage = 'done';
    c.detach();
    c.client.pause();
    const rest = c.buf;
    c.buf = Buffer.alloc(0);
    return rest;
  }

  private async http(c: Asking): Promise<void> {
    const end = headEnd(c.buf);
    if (end < 0) return;
    const ask = parseHttpAsk(c.buf.subarray(0, end).toString('latin1'));
    c.buf = c.buf.subarray(end);
    const rest = this.handOver(c);
    if (ask.kind === 'bad') {
      const status = ask.status ?? 400;
      c.client.end(proxyAnswer(status, status === 411 ? 'Length Required' : 'Bad Request', `dsh proxy: ${ask.reason}`));
      return;
    }
    const via = ask.kind === 'connect' ? 'connect' : 'http';
    const got = await reach(this.options.rules, this.resolver, ask.host, ask.port);
    if (!got.ok) {
      this.refuse(via, ask.host, ask.port, got.refused, got.reason);
      const [status, phrase] = got.refused ? [403, 'Forbidden'] : [502, 'Bad Gateway'];
      const extra = got.refused ? ['X-Dsh-Denied: network'] : [];
      c.client.end(proxyAnswer(status as number, phrase as string, this.message(ask.host, ask.port, got), extra));
      return;
    }
    if (ask.kind === 'connect') c.client.write('HTTP/1.1 200 Connection established\r\n\r\n');
    else got.socket.write(ask.head);
    this.splice(c.client, got.socket, rest, via, ask.host, ask.port, ask.kind === 'forward' ? ask.bodyBytes : null);
  }

  private socksGreet(c: Asking): void {
    const g = socksGreeting(c.buf);
    if (!g) return;
    c.buf = c.buf.subarray(g.length);
    if (!g.noAuth) {
      this.handOver(c);
      c.client.end(Buffer.from([0x05, 0xff]));
      return;
    }
    c.client.write(Buffer.from([0x05, 0x00]));
    c.stage = 'socks-request';
  }

  private async socksAsk(c: Asking): Promise<void> {
    const req = socksRequest(c.buf);
    if (!req) return;
    c.buf = c.buf.subarray(req.length);
    const rest = this.handOver(c);
    if ('bad' in req || req.command !== 0x01) {
      c.client.end(socksReply('bad' in req ? req.bad : SOCKS.commandUnsupported));
      return;
    }
    const got = await reach(this.options.rules, this.resolver, req.host, req.port);
    if (!got.ok) {
      this.refuse('socks', req.host, req.port, got.refused, got.reason);
      const code = got.refused
        ? SOCKS.notAllowed
        : /ECONNREFUSED/.test(got.reason)
          ? SOCKS.refused
          : SOCKS.hostUnreachable;
      c.client.end(socksReply(code));
      return;
    }
    c.client.write(socksReply(SOCKS.ok));
    this.splice(c.client, got.socket, rest, 'socks', req.host, req.port);
  }

  private message(host: string, port: number, got: { refused: boolean; reason: string }): string {
    if (!got.refused) return `dsh proxy: ${got.reason}`;
    const fix = this.options.fixFor?.(host, got.reason) ?? 'ask for escalation';
    return `dsh: network to ${host}:${port} refused by the sandbox (${got.reason}); ${fix}`;
  }

  private refuse(via: NetRecord['via'], host: string, port: number, refused: boolean, reason: string): void {
    const sole = (this.liveRuns?.() ?? 1) <= 1;
    this.record({ at: Date.now(), host, port, via, allowed: false, reason, refused, sent: 0, received: 0, sole });
  }

  /** How many commands run in the world now (the world tells it once it exists). */
  private liveRuns: (() => number) | null = null;

  /** Tells the proxy how to count the world's running commands (a refusal is a run's only when it ran alone). */
  countRunsWith(count: () => number): void {
    this.liveRuns = count;
  }

  /** Joins the program's connection to the destination's; recorded once both have ended. */
  private splice(
    client: Socket,
    upstream: Socket,
    rest: Buffer,
    via: NetRecord['via'],
    host: string,
    port: number,
    clientBytes: number | null = null,
  ): void {
    const at = Date.now();
    this.upstreams.add(upstream);
    const cap = this.options.maxBytesPerConnection ?? null;
    const ended = (sent: number, received: number): void => {
      this.upstreams.delete(upstream);
      this.record({ at, host, port, via, allowed: true, reason: null, refused: false, sent, received });
    };
    joinSockets(client, upstream, rest, cap, ended, clientBytes);
  }
}

/** A connection while it asks for its destination. */
interface Asking {
  client: Socket;
  buf: Buffer;
  stage: 'first' | 'http' | 'socks-greeting' | 'socks-request' | 'done';
  busy: boolean;
  detach: () => void;
}
