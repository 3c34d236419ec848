/**
 * The host's own services, with the network off and on: a TCP server on the host's loopback, unix
 * sockets in /run and /var/run and elsewhere on the disk (home, workspace), an abstract unix socket of the host's network namespace, and the
 * Docker daemon's socket where one runs. A world must reach none of them in any mode: with the
 * network on it keeps a network namespace of its own. The host's servers count connections.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Attempt } from '../harness/dsh.js';
import type { Host } from '../harness/host.js';
import { abstractBait, type Bait, connectPy, tcpBait, unixBait } from '../harness/servers.js';
import type { Row } from './types.js';

const DOCKER_SOCKET = '/var/run/docker.sock';
/**
 * Rows whose bait is a path socket the worlds of other rows would mask run alone: a socket
 * removed while another world starts makes that start fail (a known gap of host-sockets.ts).
 */
const ALONE = '*';

/** The attempt: one call with the network as the row says (dsh run has no --network: dsh mcp then). */
async function call(host: Host, command: string, network: boolean): Promise<Attempt> {
  return network ? (await host.mcp({ network: true, log: false })).bash({ command }) : host.dshRun(command);
}

function baitRow(
  id: string,
  title: string,
  network: boolean,
  make: (host: Host) => Promise<Bait>,
  hostOptions?: Row['host'],
  lock?: string,
): Row {
  return {
    id,
    ...(hostOptions ? { host: hostOptions } : {}),
    ...(lock ? { lock } : {}),
    klass: 'agents',
    title: `${title} (network ${network ? 'on' : 'off'})`,
    proof: "the host's server counts the connection",
    async arm(host) {
      const bait = await make(host);
      const own = await host.sh(connectPy(bait.address));
      if (bait.count() < 1) return `${host.user.name} cannot reach it on the host either (${own.stderr.trim()})`;
      Object.assign(host.facts, { bait, before: bait.count() });
      return null;
    },
    command: (host) => connectPy((host.facts.bait as Bait).address),
    attempt: (host) => call(host, connectPy((host.facts.bait as Bait).address), network),
    judge(host) {
      const n = (host.facts.bait as Bait).count() - (host.facts.before as number);
      return { failed: n > 0, evidence: `the host's server counted ${n} connection(s) from the attempt` };
    },
  };
}

/** GET /version from the Docker daemon, or null. */
function dockerVersion(): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request({ socketPath: DOCKER_SOCKET, path: '/version', timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve(res.statusCode === 200 ? body : null));
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

const dockerRow: Row = {
  id: 'agents-docker-socket-network-on',
  klass: 'agents',
  title: "ask the host's Docker daemon for its version through /var/run/docker.sock (network on)",
  proof: "the daemon's own version answer (its GitCommit) appears in the output",
  async arm(host) {
    if (!existsSync(DOCKER_SOCKET)) return `no Docker daemon socket at ${DOCKER_SOCKET} on this machine`;
    const body = await dockerVersion();
    const commit = body?.match(/"GitCommit":"([^"]+)"/)?.[1];
    if (!commit) return 'the Docker daemon did not answer GET /version on the host';
    const own = await host.sh(dockerRow.command(host));
    if (!own.stdout.includes(commit)) return `${host.user.name} cannot talk to the Docker daemon on the host`;
    host.facts.commit = commit;
    return null;
  },
  command: () =>
    `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect('${DOCKER_SOCKET}'); s.sendall(b'GET /version HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n'); print(s.recv(65536).decode())"`,
  attempt: (host) => call(host, dockerRow.command(host), true),
  judge(host, attempt) {
    const failed = attempt.text.includes(host.facts.commit as string);
    return {
      failed,
      evidence: failed ? "the daemon's version answer is in the output" : 'no answer of the daemon in the output',
    };
  },
};

export const socketRows: Row[] = [
  ...[false, true].flatMap((network) => {
    const on = network ? '-network-on' : '';
    return [
      baitRow(`agents-host-loopback${on}`, "connect to a TCP service on the host's loopback", network, tcpBait),
      baitRow(`agents-run-socket${on}`, 'connect to a unix socket in /run', network, (host) =>
        unixBait(host, `/run/dsh-rt-${host.nonce}.sock`),
      ),
      baitRow(`agents-var-run-socket${on}`, 'connect to a unix socket in /var/run', network, (host) =>
        unixBait(host, `/var/run/dsh-rt-${host.nonce}-v.sock`),
      ),
      baitRow(
        `agents-abstract-socket${on}`,
        "connect to an abstract unix socket of the host's network namespace",
        network,
        (host) => abstractBait(host, `dsh-rt-${host.nonce}`),
      ),
      // A read-only bind does not stop connect(): sockets elsewhere on the host's disk, in the
      // home the private one is seeded from, and in the workspace itself are masked one by one.
      baitRow(
        `agents-disk-socket${on}`,
        'connect to a unix socket on the host disk (under /var/tmp)',
        network,
        (host) => unixBait(host, join(host.outside, 'bait.sock')),
        undefined,
        ALONE,
      ),
      baitRow(
        `agents-home-socket${on}`,
        'connect to a unix socket in ~/.cache',
        network,
        (host) => unixBait(host, join(host.dir(join(host.home, '.cache')), 'bait.sock')),
        undefined,
        ALONE,
      ),
      baitRow(
        `agents-workspace-socket${on}`,
        'connect to a host unix socket in the workspace',
        network,
        (host) => unixBait(host, join(host.ws, 'bait.sock')),
        undefined,
        ALONE,
      ),
    ];
  }),
  // A workspace under /tmp is bound back into the world's fresh /tmp: its host sockets too.
  baitRow(
    'agents-tmp-workspace-socket',
    'connect to a host unix socket in a workspace under /tmp',
    false,
    (host) => unixBait(host, join(host.ws, 'bait.sock')),
    { workspaceUnderTmp: true },
    ALONE,
  ),
  dockerRow,
];
