#!/usr/bin/env node
// `npm run bench` (part 4): the MCP server against the same calls made directly in the same run,
// its start-up, the session-log append, and the token cost of tools/list. Goals from issue 8.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { compose, SessionLog } from 'dsh';
import { fmt, median, timed } from './lib.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 100 : 500;
const ROUNDS = 5;
const STARTS = quick ? 10 : 30;
const APPENDS = quick ? 2_000 : 20_000;
const bin = fileURLToPath(new URL('../packages/dsh/bin/dsh.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'dsh-bench-mcp-'));

const row = (what, value, anchor, ratio, goal) =>
  console.log(`${what.padEnd(60)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);
console.log(`dsh MCP bench (node ${process.version}, ${CALLS} calls, ${STARTS} starts, ${APPENDS} appends)\n`);
console.log(`${'measure'.padEnd(60)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

try {
  // 1. Round trip of bash {command:'true'} over MCP vs a direct tools.call, interleaved.
  // The direct side spawns as `dsh mcp` does (strict containment), so the difference is MCP's.
  const direct = await compose({
    config: { workspace: home, sandbox: { mode: 'danger-full-access' }, subprocess: { containment: 'strict' } },
  });
  const agent = direct.createAgent('bench');
  const client = new Client({ name: 'bench', version: '1' });
  const args = [bin, 'mcp', '--no-log', '--preset', 'base', '--workspace', home, '--sandbox', 'danger-full-access'];
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...process.env, HOME: home },
      stderr: 'ignore',
    }),
  );
  // Rounds of interleaved calls; a round's delta is the difference of its medians, and the
  // figure is the median over rounds (a 2-core machine schedules the spawned bash unevenly).
  const rounds = async (name, args) => {
    for (let i = 0; i < 30; i++) {
      await direct.tools.call(agent, name, args);
      await client.callTool({ name, arguments: args });
    }
    const deltas = [];
    const directs = [];
    for (let r = 0; r < ROUNDS; r++) {
      const viaTool = [];
      const viaMcp = [];
      for (let i = 0; i < CALLS / ROUNDS; i++) {
        viaTool.push(await timed(() => direct.tools.call(agent, name, args)));
        viaMcp.push(await timed(() => client.callTool({ name, arguments: args })));
      }
      directs.push(median(viaTool));
      deltas.push(median(viaMcp) - median(viaTool));
    }
    return { direct: median(directs), delta: median(deltas) };
  };
  const bash = await rounds('bash', { command: 'true' });
  row(
    "MCP round trip of bash {command:'true'} over tools.call, ms",
    `+${fmt(bash.delta, 3)}`,
    fmt(bash.direct, 3),
    '-',
    '≤ +1 ms (median)',
  );
  const list = await rounds('job_list', {});
  row(
    'MCP round trip of job_list (protocol alone) over tools.call, ms',
    `+${fmt(list.delta, 3)}`,
    fmt(list.direct, 3),
    '-',
    '-',
  );
  await client.close();
  await direct.dispose();

  // 2. Server start → initialize answered.
  const starts = [];
  for (let i = 0; i < STARTS; i++) {
    starts.push(
      await timed(
        () =>
          new Promise((resolve, reject) => {
            const child = spawn(process.execPath, args, {
              env: { ...process.env, HOME: home },
              stdio: ['pipe', 'pipe', 'ignore'],
            });
            child.stdout.once('data', () => {
              child.stdin.end();
              resolve();
            });
            child.once('error', reject);
            const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } };
            child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
          }),
      ),
    );
  }
  row('server start → initialize answered, median ms', fmt(median(starts), 1), '-', '-', '≤ 300 ms');

  // 3. Session-log append per call (a typical bash result).
  const log = SessionLog.open(join(home, 'logs'), {
    preset: 'base',
    workspace: home,
    sandbox: 'danger-full-access',
    version: 'bench',
  });
  const entry = {
    agent: 'bench',
    tool: 'bash',
    args: { command: 'ls -la src' },
    text: `${'drwxr-xr-x 2 user user 4096 Dec  1 07:00 file.ts\n'.repeat(4)}\n[exit code: 0]`,
    isError: false,
    durationMs: 3,
  };
  const appends = [];
  for (let i = 0; i < APPENDS; i++) appends.push(await timed(() => log.toolCall(entry)));
  await log.close();
  row('session-log append per call, median ms', fmt(median(appends), 4), '-', '-', '≤ 0.05 ms');

  // 4. What tools/list costs a model for the full preset.
  const full = await compose({ preset: 'full', config: { workspace: home } });
  const listed = full.tools
    .list()
    .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  row(
    'tools/list of the full preset: names + descriptions + input schemas, chars',
    String(JSON.stringify(listed).length),
    '-',
    '-',
    '≤ 10000',
  );
  await full.dispose();
} finally {
  rmSync(home, { recursive: true, force: true });
}
