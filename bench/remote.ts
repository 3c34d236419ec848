#!/usr/bin/env -S npx tsx
// `npm run bench` (part 7): remote worlds (issue 12) over a real sshd on loopback, against the
// local runtime and raw ssh in the same run: spawn → done of `true`; terminal readiness; 1 GiB
// through the channel — as a raw pipe (every byte crosses) and collected (the server keeps the
// tail and sends what the channel can carry, counting what it skips) — against
// `ssh host 'head -c 1G /dev/zero' | wc -c`; `dsh run --connect` with the payload sent (cache
// emptied) and with it cached.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOwner } from '@dsh/core';
import type { SpawnSpec } from '@dsh/subprocess';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { connectWorld } from '@dsh/subprocess-remote';
import { BashTerminalBackend } from '@dsh/terminal-bash';
import { startSshd } from '../test/sshd.js';
import { fmt, median } from './lib.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 100 : 300;
const SENDS = quick ? 100 : 300;
const STREAM = (quick ? 256 : 1024) * 1024 * 1024;
const RUNS = quick ? 3 : 5;
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'dsh', 'bin', 'dsh.js');
const now = () => performance.now();
const row = (what: string, value: string, anchor: string, ratio: string, goal: string) =>
  console.log(`${what.padEnd(60)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);

const spec = (argv: string[], maxBytes = 1 << 20): SpawnSpec => ({
  argv,
  cwd: '/tmp',
  env: {},
  stdin: { kind: 'ignore' },
  stdout: { kind: 'collect', maxBytes },
  stderr: { kind: 'collect', maxBytes: 1 << 20 },
  graceMs: 1000,
});

const sshd = await startSshd();
const local = new LocalSubprocessRuntime();
const carrier = new LocalSubprocessRuntime();
try {
  const world = await connectWorld(sshd.argv(), carrier, { cwd: '/tmp' });
  const remote = world.runtime;
  console.log(`dsh remote bench (node ${process.version}, ssh loopback, ${CALLS} calls, ${STREAM >> 20} MiB)\n`);
  console.log(`${'measure'.padEnd(60)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

  // 1. spawn → done of `true`, interleaved.
  const overSsh: number[] = [];
  const here: number[] = [];
  for (let i = 0; i < CALLS + 20; i++) {
    let t = now();
    await remote.spawn(spec(['true'])).done;
    const a = now() - t;
    t = now();
    await local.spawn(spec(['true'])).done;
    const b = now() - t;
    if (i >= 20) {
      overSsh.push(a);
      here.push(b);
    }
  }
  const [ms, ml] = [median(overSsh), median(here)];
  row(
    'spawn→done `true` over ssh loopback, median ms (vs local)',
    fmt(ms, 3),
    fmt(ml, 3),
    `${fmt(ms / ml)}x`,
    'record',
  );

  // 2. Terminal readiness: a whole `true` send, over ssh and here.
  const sendTimes = async (rt: typeof local | typeof remote) => {
    const backend = new BashTerminalBackend(() => rt, { cwd: '/tmp' });
    const session = await backend.open({ owner: createOwner('bench'), cwd: '/tmp', cols: 120, rows: 40 });
    const times: number[] = [];
    for (let i = 0; i < SENDS + 20; i++) {
      const t = now();
      const r = await session.send({ text: 'true', timeoutMs: 10_000, submit: true, keys: [], paste: true });
      if (r.reason !== 'stdin_read') throw new Error(`unexpected ${JSON.stringify(r)}`);
      if (i >= 20) times.push(now() - t);
    }
    await session.close();
    return median(times);
  };
  const [tr, tl] = [await sendTimes(remote), await sendTimes(local)];
  row(
    'terminal send `true` → ready over ssh, median ms (vs local)',
    fmt(tr, 2),
    fmt(tl, 2),
    `+${fmt(tr - tl, 2)}`,
    '≤ +2 ms',
  );
  // 3. A large collect through the channel against raw ssh piping the same bytes (best of 3).
  const head = ['head', '-c', String(STREAM), '/dev/zero'];
  let best = { ours: Infinity, raw: Infinity };
  for (let round = 0; round < 3; round++) {
    let t = now();
    const h = remote.spawn(spec(head, 1 << 20));
    await h.done;
    if (h.stdoutReader?.totalBytes !== STREAM) throw new Error('short collect over the channel');
    best = { ...best, ours: Math.min(best.ours, now() - t) };
    t = now();
    const bytes = await new Promise<number>((resolve, reject) => {
      const c = spawn('ssh', [...sshd.argv().slice(1), head.join(' ')], { stdio: ['ignore', 'pipe', 'inherit'] });
      let n = 0;
      c.stdout.on('data', (d: Buffer) => {
        n += d.length;
      });
      c.once('error', reject);
      c.once('close', () => resolve(n));
    });
    if (bytes !== STREAM) throw new Error('short raw ssh stream');
    best = { ...best, raw: Math.min(best.raw, now() - t) };
  }
  // Every byte through the channel: a raw pipe, counted here.
  let piped = Infinity;
  for (let round = 0; round < 3; round++) {
    const t = now();
    const h = remote.spawn({ ...spec(head), stdout: { kind: 'pipe' } });
    let n = 0;
    h.stdout?.on('data', (d: Buffer) => {
      n += d.length;
    });
    // A raw pipe is read to its end by its consumer (`done` waits for collectors only).
    await Promise.all([h.done, new Promise((r) => h.stdout?.once('end', r))]);
    if (n !== STREAM) throw new Error(`short pipe over the channel: ${n}`);
    piped = Math.min(piped, now() - t);
  }
  const mbps = (t: number) => STREAM / (1 << 20) / (t / 1000);
  row(
    `pipe ${STREAM >> 20} MiB over ssh (every byte), MiB/s (vs raw ssh | wc -c)`,
    fmt(mbps(piped), 0),
    fmt(mbps(best.raw), 0),
    `${fmt(best.raw / piped)}x`,
    '≥ 0.80x',
  );
  row(
    `collect ${STREAM >> 20} MiB over ssh, MiB/s (vs raw ssh | wc -c)`,
    fmt(mbps(best.ours), 0),
    fmt(mbps(best.raw), 0),
    `${fmt(best.raw / best.ours)}x`,
    '≥ 0.80x',
  );

  await remote.dispose();

  // 4. `dsh run --connect`: the payload sent (cache emptied first), and cached.
  const connect = sshd.argv().join(' ');
  const cliRun = () => {
    const t = now();
    const r = spawnSync(process.execPath, [CLI, 'run', '--no-log', '--connect', connect, '--', 'true'], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`dsh run --connect failed: ${r.stderr}`);
    return now() - t;
  };
  const sent: number[] = [];
  const cached: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    rmSync('/root/.cache/dsh/runtime', { recursive: true, force: true });
    sent.push(cliRun());
    cached.push(cliRun());
  }
  row('dsh run --connect, payload sent (no dsh there), median ms', fmt(median(sent), 0), '-', '-', 'record');
  row('dsh run --connect, payload cached, median ms', fmt(median(cached), 0), '-', '-', 'record');
} finally {
  await local.dispose();
  await carrier.dispose();
  await sshd.stop();
}
