#!/usr/bin/env node
// `npm run bench` (part 4b): `dsh mcp --http` (issue 21). The HTTP round trip of `bash true`
// against the stdio round trip in the same run, 50 sessions at once (20 calls each), and the
// resident memory of an idle server (initialized, no call yet) over each transport.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fmt, median, percentile, timed } from './lib.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 100 : 400;
const ROUNDS = 5;
const SESSIONS = 50;
const PER_SESSION = 20;
const bin = fileURLToPath(new URL('../packages/dsh/bin/dsh.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'dsh-bench-http-'));
const workspace = join(home, 'ws');
mkdirSync(workspace);
const env = { ...process.env, HOME: home };
const common = ['--no-log', '--preset', 'base', '--workspace', workspace, '--sandbox', 'danger-full-access'];
const args = { command: 'true' };

const row = (what, value, anchor, ratio, goal) =>
  console.log(`${what.padEnd(60)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);
console.log(`dsh MCP over HTTP bench (node ${process.version}, ${CALLS} calls, ${SESSIONS} sessions)\n`);
console.log(`${'measure'.padEnd(60)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

const rssMiB = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** Starts `dsh mcp --http` and waits for its endpoint line. */
async function startHttp() {
  const child = spawn(process.execPath, [bin, 'mcp', '--http', ...common], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => {
    err += d.toString();
  });
  for (let i = 0; i < 600; i++) {
    const m = /MCP over HTTP at \S+ \(or (\S+) with Authorization: Bearer (\S+)\)/.exec(err);
    if (m) return { child, endpoint: m[1], token: m[2] };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`dsh mcp --http did not start: ${err}`);
}

async function httpClient(server) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.endpoint), {
      requestInit: { headers: { authorization: `Bearer ${server.token}` } },
    }),
  );
  return client;
}

const server = await startHttp();
const clients = [];
let stdioPid;
try {
  const overHttp = await httpClient(server);
  clients.push(overHttp);
  const stdioTransport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', ...common],
    env,
    stderr: 'ignore',
  });
  const overStdio = new Client({ name: 'bench', version: '1' });
  await overStdio.connect(stdioTransport);
  clients.push(overStdio);
  stdioPid = stdioTransport.pid;

  // Idle memory: both servers initialized, no call made yet.
  await new Promise((r) => setTimeout(r, 1000));
  row('RSS of an idle dsh mcp (stdio; initialized, no call), MiB', fmt(rssMiB(stdioPid), 1), '-', '-', '≤ 64 MB');
  row('RSS of an idle dsh mcp --http (one session), MiB', fmt(rssMiB(server.child.pid), 1), '-', '-', '-');

  // 1. Round trip of bash true over HTTP against stdio, interleaved rounds (median of round deltas).
  for (let i = 0; i < 30; i++) {
    await overStdio.callTool({ name: 'bash', arguments: args });
    await overHttp.callTool({ name: 'bash', arguments: args });
  }
  const deltas = [];
  const stdios = [];
  for (let r = 0; r < ROUNDS; r++) {
    const viaStdio = [];
    const viaHttp = [];
    for (let i = 0; i < CALLS / ROUNDS; i++) {
      viaStdio.push(await timed(() => overStdio.callTool({ name: 'bash', arguments: args })));
      viaHttp.push(await timed(() => overHttp.callTool({ name: 'bash', arguments: args })));
    }
    stdios.push(median(viaStdio));
    deltas.push(median(viaHttp) - median(viaStdio));
  }
  row(
    "HTTP round trip of bash {command:'true'} over stdio, median ms",
    `+${fmt(median(deltas), 3)}`,
    fmt(median(stdios), 3),
    '-',
    '≤ +1 ms',
  );

  // 2. 50 sessions at once, each 20 calls of bash true, one after another within a session.
  const many = await Promise.all(Array.from({ length: SESSIONS }, () => httpClient(server)));
  clients.push(...many);
  const each = [];
  await Promise.all(
    many.map(async (client) => {
      for (let i = 0; i < PER_SESSION; i++)
        each.push(await timed(() => client.callTool({ name: 'bash', arguments: args })));
    }),
  );
  row(
    `${SESSIONS} sessions at once × ${PER_SESSION} calls of bash true: median / p99 ms`,
    `${fmt(median(each), 1)} / ${fmt(percentile(each, 99), 1)}`,
    '-',
    '-',
    'p99 ≤ 50 ms',
  );
  row('RSS of dsh mcp --http after them, MiB', fmt(rssMiB(server.child.pid), 1), '-', '-', '-');
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  if (server.child.pid && server.child.pid > 1) server.child.kill('SIGTERM');
  await new Promise((r) => (server.child.exitCode === null ? server.child.once('exit', r) : r()));
  rmSync(home, { recursive: true, force: true });
}
