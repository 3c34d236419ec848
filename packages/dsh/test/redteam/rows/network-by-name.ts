/**
 * Network by name (issue 24): a world whose policy names hosts reaches the host's loopback
 * services neither directly (its namespace has only loopback) nor through its own proxy (by IP,
 * by `localhost`, over SOCKS): a name or address that leads into the host's loopback is refused
 * on the host side. The host's server counts connections.
 */
import { type Bait, connectPy, tcpBait } from '../harness/servers.js';
import type { Row } from './types.js';

/** The allow list of these rows: a name that is not the bait's (it need not resolve). */
const ALLOWED = ['registry.npmjs.org'];

function row(id: string, title: string, command: (port: string) => string, allowed = ALLOWED): Row {
  return {
    id,
    klass: 'agents',
    title: `${title} (network by name)`,
    proof: "the host's server counts the connection",
    async arm(host) {
      const bait = await tcpBait(host);
      const own = await host.sh(connectPy(bait.address));
      if (bait.count() < 1) return `${host.user.name} cannot reach it on the host either (${own.stderr.trim()})`;
      Object.assign(host.facts, { bait, before: bait.count() });
      return null;
    },
    command: (host) => command((host.facts.bait as Bait).address),
    attempt: (host) => host.dshRun(command((host.facts.bait as Bait).address), { allowHosts: allowed }),
    judge(host) {
      const n = (host.facts.bait as Bait).count() - (host.facts.before as number);
      return { failed: n > 0, evidence: `the host's server counted ${n} connection(s) from the attempt` };
    },
  };
}

export const networkByNameRows: Row[] = [
  row('agents-host-loopback-by-name', "connect straight to a TCP service on the host's loopback", (port) =>
    connectPy(port),
  ),
  row(
    'agents-host-loopback-via-proxy',
    "ask the world's proxy for the host's loopback service by address, as localhost, and over SOCKS",
    (port) =>
      [
        `curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:3128 http://127.0.0.1:${port}/`,
        `curl -sS --max-time 10 --noproxy '' -p -x http://127.0.0.1:3128 http://localhost:${port}/`,
        `curl -sS --max-time 10 -x socks5h://127.0.0.1:3128 http://localhost:${port}/`,
        `curl -sS --max-time 10 -x socks5://127.0.0.1:3128 http://[::1]:${port}/`,
      ].join('; '),
  ),
  // An allowed name that resolves into the host's loopback (as a rebinding DNS answer would):
  // the proxy checks the address it resolved, not only the name.
  row(
    'agents-allowed-name-to-loopback',
    "reach the host's loopback service through an allowed name that resolves to 127.0.0.1 (localhost)",
    (port) =>
      `curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:3128 http://localhost:${port}/; curl -sS --max-time 10 -x socks5h://127.0.0.1:3128 http://localhost:${port}/`,
    ['localhost'],
  ),
];
