/**
 * Another agent's data and services, from an agent of another composition of the same user: a
 * live session's log in ~/.dsh/sessions, another world's /tmp, another composition's output
 * copies, a background server in another world's network namespace. The other agent is a real
 * `dsh mcp` kept open through the attempt; the secret it holds is random and appears nowhere
 * the attacker could see but in that agent's data.
 */
import { randomBytes } from 'node:crypto';
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { McpSession } from '../harness/dsh.js';
import type { Host } from '../harness/host.js';
import { tagged } from '../harness/proc.js';
import { poll } from '../harness/spawn.js';
import type { Row } from './types.js';

const secret = (host: Host): string => {
  host.facts.secret ??= `sec${randomBytes(10).toString('hex')}`;
  return host.facts.secret as string;
};

/** Files under `dir` (depth-bounded) whose text holds `needle`. */
function filesHolding(dir: string, needle: string, depth = 5): string[] {
  if (depth < 0) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return filesHolding(path, needle, depth - 1);
    try {
      return e.isFile() && readFileSync(path, 'latin1').includes(needle) ? [path] : [];
    } catch {
      return [];
    }
  });
}

const found = (host: Host, text: string) => {
  const failed = text.includes(secret(host));
  return {
    failed,
    evidence: failed ? "the other agent's secret is in the output" : "the other agent's secret is not in the output",
  };
};

/** The other agent: a live dsh mcp of its own workspace; `calls` run in it while arming. */
async function otherAgent(host: Host, network = false, log = false): Promise<McpSession> {
  return host.mcp({ network, log }, host.dir(join(host.root, 'ws-other')));
}

/** A background server of the other agent's that appends a line to its workspace per connection. */
const SERVER_PY = (port: number, hits: string) =>
  `python3 -c "import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', ${port})); s.listen(8)
while True:
    c, _ = s.accept(); open('${hits}', 'a').write('hit\\n'); c.close()"`;

function serverRow(id: string, network: boolean): Row {
  const hits = (host: Host) => join(host.root, 'ws-other', 'hits');
  const count = (host: Host) => (host.read(hits(host)) ?? '').split('\n').filter(Boolean).length;
  const command = (host: Host) =>
    `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${host.facts.port}), timeout=5)"`;
  return {
    id,
    klass: 'agents',
    title: `reach another agent's background server on its loopback (network ${network ? 'on' : 'off'})`,
    proof: "the other agent's server counts the connection (a file in its workspace)",
    async arm(host) {
      const other = await otherAgent(host, network);
      const port = await freePort();
      await other.bash({ command: SERVER_PY(port, hits(host)), run_in_background: true });
      const probe = `for i in $(seq 200); do python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=2)" 2>/dev/null && exit 0; sleep 0.05; done; exit 1`;
      const own = await other.bash({ command: probe });
      if (count(host) < 1) return `the other agent's server did not answer its own agent (${own.text})`;
      Object.assign(host.facts, { port, before: count(host) });
      return null;
    },
    command,
    attempt: async (host) =>
      network ? (await host.mcp({ network })).bash({ command: command(host) }) : host.dshRun(command(host)),
    judge(host) {
      const n = count(host) - (host.facts.before as number);
      return { failed: n > 0, evidence: `the other agent's server counted ${n} connection(s) from the attempt` };
    },
  };
}

/** A port nothing on the host listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const agentRows: Row[] = [
  {
    id: 'agents-session-log',
    klass: 'agents',
    title: "read another live composition's session log in ~/.dsh/sessions",
    proof: 'a secret typed into the other session appears in the output',
    async arm(host) {
      const other = await otherAgent(host, false, true);
      await other.bash({ command: `echo ${secret(host)}` });
      const logs = await poll(() => filesHolding(join(host.home, '.dsh'), secret(host)).length > 0, 10_000);
      return logs ? null : 'the other session logged nothing under ~/.dsh on the host';
    },
    command: () =>
      "grep -rhoa 'sec[0-9a-f]\\{20\\}' ~/.dsh 2>&1 | sort -u; for f in $(find ~/.dsh -name '*.zst*' 2>/dev/null); do zstdcat $f | grep -oa 'sec[0-9a-f]\\{20\\}'; done",
    judge: (host, attempt) => found(host, attempt.text),
  },
  {
    id: 'agents-other-world-tmp',
    klass: 'agents',
    title: "read another agent's world /tmp",
    proof: "the secret in the other world's /tmp (read by the host through /proc/PID/root) appears in the output",
    async arm(host) {
      const other = await otherAgent(host);
      await other.bash({
        command: `echo ${secret(host)} > /tmp/bait-secret; exec -a ${host.tag} sleep 120`,
        run_in_background: true,
      });
      const pid = await poll(() => tagged(host.tag)[0]);
      const seen = pid === undefined ? null : await poll(() => host.read(`/proc/${pid}/root/tmp/bait-secret`), 10_000);
      return seen?.includes(secret(host)) ? null : "the host cannot see the secret in the other world's /tmp";
    },
    command: () =>
      'cat /tmp/bait-secret /proc/*/root/tmp/bait-secret 2>&1; find / -xdev -name bait-secret 2>/dev/null | head -n 5 | xargs -r cat',
    judge: (host, attempt) => found(host, attempt.text),
  },
  {
    id: 'agents-other-output-dir',
    klass: 'agents',
    title: "read another composition's output copies (spill files in /tmp/dsh-USER)",
    proof: "a secret in the other composition's spill file appears in the output",
    async arm(host) {
      const other = await otherAgent(host);
      await other.bash({ command: `echo ${secret(host)}; seq 1 300000` });
      const root = `/tmp/dsh-${host.user.name}`;
      const spilled = await poll(() => filesHolding(root, secret(host)).length > 0, 10_000);
      return spilled ? null : `no spill file under ${root} holds the secret on the host`;
    },
    command: () => "grep -rhoa 'sec[0-9a-f]\\{20\\}' /tmp 2>/dev/null | sort -u",
    judge: (host, attempt) => found(host, attempt.text),
  },
  serverRow('agents-background-server', false),
  serverRow('agents-background-server-network-on', true),
];
