/**
 * The proxy's one way out: a destination is checked against the rules, resolved here (on the
 * host, never inside the world), checked again by address (no name may lead into the LAN, the
 * host's loopback or the metadata service), then connected to at the address that was checked.
 */
import { lookup } from 'node:dns/promises';
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import { isPrivateAddress } from './addresses.js';
import { type HostRules, normalizeHost } from './rules.js';

/** How long a connection to a destination may take before the proxy gives up on it. */
export const PROXY_CONNECT_TIMEOUT_MS = 15_000;

/** Where a name leads. */
export interface NetTarget {
  address: string;
  port: number;
  /** A test's stand-in for a public host (its loopback address is not checked as private). @default false */
  standIn?: boolean;
}

/** Resolves a destination to addresses (the default: this machine's resolver, the port unchanged). */
export type NetResolver = (host: string, port: number) => Promise<NetTarget[]>;

/** The machine's resolver. */
export const systemResolver: NetResolver = async (host, port) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, port }));

/**
 * A resolver from a fixed map of names to `address:port` (tests: loopback servers stand in for
 * remote hosts, and such a target counts as public). A value starting with `!` is an answer
 * checked as it is (a name that leads to the host's loopback or the LAN). Names not in the map
 * do not resolve.
 */
export function mapResolver(map: Readonly<Record<string, string>>): NetResolver {
  return async (host) => {
    const value = map[normalizeHost(host)];
    if (!value) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const real = value.startsWith('!');
    const to = real ? value.slice(1) : value;
    const colon = to.lastIndexOf(':');
    return [{ address: to.slice(0, colon), port: Number(to.slice(colon + 1)), standIn: !real }];
  };
}

/** What came of reaching a destination. */
export type Reach =
  | { ok: true; socket: Socket; address: string }
  | { ok: false; refused: true; reason: string }
  | { ok: false; refused: false; reason: string };

/** Checks, resolves and connects to `host:port` under `rules`. Never rejects. */
export async function reach(rules: HostRules, resolver: NetResolver, host: string, port: number): Promise<Reach> {
  const decision = rules.decide(host, port);
  if (!decision.allowed) return { ok: false, refused: true, reason: decision.reason };
  const bare = normalizeHost(host); // the name the rules decided: no brackets, case or trailing dot
  let targets: NetTarget[];
  if (isIP(bare) !== 0) targets = [{ address: bare, port }];
  else {
    try {
      targets = await resolver(bare, port);
    } catch (error) {
      return { ok: false, refused: false, reason: `could not resolve ${bare} (${codeOf(error)})` };
    }
  }
  const usable = targets.filter(
    (t) =>
      t.standIn === true || rules.allowPrivate || rules.namesAddress(t.address, t.port) || !isPrivateAddress(t.address),
  );
  if (usable.length === 0) {
    const first = targets[0]?.address ?? 'no address';
    return { ok: false, refused: true, reason: `it resolves to a private address (${first})` };
  }
  let last = 'no address';
  for (const target of usable) {
    const result = await connectTo(target);
    if (result.socket) return { ok: true, socket: result.socket, address: target.address };
    last = result.error;
  }
  return { ok: false, refused: false, reason: `could not connect to ${bare}:${port} (${last})` };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

function connectTo(target: NetTarget): Promise<{ socket: Socket; error?: never } | { socket?: never; error: string }> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: target.address, port: target.port, allowHalfOpen: true });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ error: `no answer in ${PROXY_CONNECT_TIMEOUT_MS} ms` });
    }, PROXY_CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve({ socket });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ error: codeOf(error) });
    });
  });
}
