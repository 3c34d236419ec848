#!/usr/bin/env node
// `npm run bench` (network by name, issue 24): a 100 MiB download through an agent's world and its
// proxy from a loopback server, against the same download with curl unconfined (no proxy: a
// stricter anchor than a world with the whole network, which cannot reach the host's loopback);
// and the time to the first byte of a small answer through the proxy against a direct connection,
// both measured by curl itself, many times in one command, in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { compose } from 'dsh';
import { fmt, MiB, median } from './lib.mjs';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const PINGS = quick ? 30 : 100;
const SIZE = 100 * MiB;
const chunk = Buffer.alloc(MiB, 'x');
const server = createServer((req, res) => {
  if (req.url === '/big') {
    res.setHeader('Content-Length', String(SIZE));
    let left = SIZE / MiB;
    const more = () => {
      while (left > 0) {
        left--;
        if (!res.write(chunk)) return res.once('drain', more);
      }
      res.end();
    };
    more();
  } else res.end('pong\n');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const root = mkdtempSync(join('/var/tmp', 'dsh-bench-net-'));
const row = (what, value, anchor, ratio, goal) =>
  console.log(`${what.padEnd(62)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);
console.log(`dsh network bench (node ${process.version}, ${ROUNDS} downloads, ${PINGS} first bytes)\n`);
console.log(`${'measure'.padEnd(62)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

/** The numbers one bash command printed, one per line. */
async function numbers(dsh, agent, command) {
  const r = await dsh.tools.call(agent, 'bash', { command, timeout_ms: 600_000 });
  return [...r.text.matchAll(/^([0-9.]+)$/gm)].map((m) => Number(m[1]));
}

const proxied = await compose({
  config: {
    workspace: root,
    sandbox: { mode: 'workspace-write', network: { allow: ['big.test'], pin: { 'big.test': `127.0.0.1:${port}` } } },
  },
});
const open = await compose({ config: { workspace: root, sandbox: { mode: 'danger-full-access' } } });
try {
  const [a, b] = [proxied.createAgent('net'), open.createAgent('raw')];
  const rate = "-s -o /dev/null -w '%{speed_download}\\n'";
  const loop = (n, what) => `for i in $(seq ${n}); do curl ${what}; done`;
  const viaProxy = await numbers(proxied, a, loop(ROUNDS, `${rate} http://big.test/big`));
  const direct = await numbers(open, b, loop(ROUNDS, `${rate} http://127.0.0.1:${port}/big`));
  const mbps = (bps) => fmt(bps / MiB, 0);
  row(
    '100 MiB through the proxy over curl unconfined, MiB/s (median)',
    mbps(median(viaProxy)),
    mbps(median(direct)),
    `${fmt(median(viaProxy) / median(direct))}x`,
    '≥ 0.8x',
  );
  const first = "-s -o /dev/null -w '%{time_starttransfer}\\n'";
  const pingProxy = await numbers(proxied, a, loop(PINGS, `${first} http://big.test/ping`));
  const pingDirect = await numbers(open, b, loop(PINGS, `${first} http://127.0.0.1:${port}/ping`));
  const ms = (s) => median(s) * 1000;
  row(
    'first byte through the proxy over a direct connect, median ms',
    `+${fmt(ms(pingProxy) - ms(pingDirect), 3)}`,
    fmt(ms(pingDirect), 3),
    `${fmt(ms(pingProxy) / ms(pingDirect))}x`,
    '≤ +1 ms',
  );
} finally {
  await proxied.dispose();
  await open.dispose();
  server.close();
  rmSync(root, { recursive: true, force: true });
}
