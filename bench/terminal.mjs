#!/usr/bin/env node
// `npm run bench` (part 3): persistent-terminal readiness (with the emulator behind every
// session) against raw node-pty anchors in the same run; `seq 1 1000000` through a terminal
// against a raw node-pty drain of the same; memory after it. Goals from issues 4 and 10.
import { createRequire } from 'node:module';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { BashTerminalBackend } from '@dsh/terminal-bash';
import { fmt, median, percentile } from './lib.mjs';

const quick = process.argv.includes('--quick');
const SENDS = quick ? 100 : 500;
const CANCELS = quick ? 20 : 50;
const pty = createRequire(import.meta.url)('@lydell/node-pty');
const now = () => performance.now();

const rows = [];
const row = (what, value, anchor, goal) => {
  rows.push({ what, value, anchor, goal });
  console.log(`${what.padEnd(58)} ${value.padStart(10)} ${anchor.padStart(10)}  ${goal}`);
};
console.log(`dsh terminal bench (node ${process.version}, ${SENDS} sends, ${CANCELS} cancels)\n`);
console.log(`${'measure'.padEnd(58)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)}  goal`);

const subprocess = new LocalSubprocessRuntime();
const backend = new BashTerminalBackend(() => subprocess, { cwd: '/tmp' });
const session = await backend.open({ cwd: '/tmp', cols: 120, rows: 40 });

async function readiness(command) {
  const lat = [];
  const total = [];
  for (let i = 0; i < SENDS + 20; i++) {
    const t0 = now();
    const r = await session.send({ text: command, timeoutMs: 10_000, submit: true, keys: [], paste: true });
    const t1 = now();
    if (r.reason !== 'stdin_read' || r.commandExitCode !== 0) throw new Error(`unexpected ${JSON.stringify(r)}`);
    if (i >= 20) {
      lat.push(t1 - session.markerSeenAt);
      total.push(t1 - t0);
    }
  }
  return { lat, total };
}

/** Raw anchors on a bare node-pty bash: echo round trip, and a 100 ms silence detector. */
async function rawAnchors() {
  const p = pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
    name: 'xterm',
    cols: 120,
    rows: 40,
    cwd: '/tmp',
    env: { ...process.env, PS1: '$ ' },
  });
  let buf = '';
  let last = now();
  let waiter = null;
  p.onData((d) => {
    buf += d;
    last = now();
    waiter?.();
  });
  const until = (pred) =>
    new Promise((resolve) => {
      const check = () => {
        if (pred()) {
          waiter = null;
          resolve();
        }
      };
      waiter = check;
      check();
    });
  await until(() => buf.includes('$ '));
  const echo = [];
  for (let i = 0; i < SENDS / 5 + 10; i++) {
    const token = `tok${i}x`;
    buf = '';
    const t0 = now();
    p.write(`/bin/echo ${token}Y\r`);
    // the command's output line (after a line start), not the echo of the typed input
    await until(() => buf.includes(`\n${token}Y\r\n`) || buf.includes(`\r${token}Y\r\n`));
    if (i >= 10) echo.push(now() - t0);
    await until(() => buf.endsWith('$ '));
  }
  const silence = [];
  for (let i = 0; i < 20; i++) {
    const t0 = now();
    p.write('true\r');
    await new Promise((resolve) => {
      const tick = () => (now() - last >= 100 ? resolve() : setTimeout(tick, 5));
      setTimeout(tick, 5);
    });
    silence.push(now() - t0);
  }
  p.kill();
  return { echo, silence };
}

const builtin = await readiness(':');
const external = await readiness('/bin/echo x');
const raw = await rawAnchors();
row('readiness: marker → send settled, builtin, median ms', fmt(median(builtin.lat), 3), '-', '≤ 2 ms');
row('readiness: marker → send settled, builtin, p99 ms', fmt(percentile(builtin.lat, 99), 3), '-', '≤ 10 ms');
row('readiness: marker → send settled, /bin/echo, median ms', fmt(median(external.lat), 3), '-', '≤ 2 ms');
row('readiness: marker → send settled, /bin/echo, p99 ms', fmt(percentile(external.lat, 99), 3), '-', '≤ 10 ms');
row(
  'whole send of /bin/echo (vs raw node-pty round trip of the same), median ms',
  fmt(median(external.total), 3),
  fmt(median(raw.echo), 3),
  '-',
);
row(
  'whole send of a builtin (vs 100 ms-silence detector), median ms',
  fmt(median(builtin.total), 3),
  fmt(median(raw.silence), 1),
  '-',
);

const cancel = [];
for (let i = 0; i < CANCELS; i++) {
  const pending = session.send({ text: 'sleep 100', timeoutMs: 30_000, submit: true, keys: [], paste: true });
  await new Promise((r) => setTimeout(r, 50)); // sleep is in the foreground by then, as a model's cancel would find it
  const t0 = now();
  void session.cancel(5_000);
  const r = await pending;
  cancel.push(now() - t0);
  if (!r.cancelled || r.reason !== 'stdin_read') throw new Error(`cancel failed: ${JSON.stringify(r)}`);
}
row('cancel → prompt back, median ms', fmt(median(cancel), 3), '-', '≤ 5 ms');
row('cancel → prompt back, p99 ms', fmt(percentile(cancel, 99), 3), '-', '-');

/** Raw anchor: node-pty running `seq 1 N`, drained to its end (no emulator, no session). */
async function rawDrain(n) {
  const t0 = now();
  const p = pty.spawn('seq', ['1', String(n)], { name: 'xterm', cols: 120, rows: 40, cwd: '/tmp', env: process.env });
  let chars = 0;
  p.onData((d) => {
    chars += d.length;
  });
  await new Promise((resolve) => p.onExit(resolve));
  return { ms: now() - t0, chars };
}
const SEQ = 1_000_000;
const through = [];
const drains = [];
for (let i = 0; i < (quick ? 1 : 3); i++) {
  drains.push((await rawDrain(SEQ)).ms);
  const t0 = now();
  const r = await session.send({ text: `seq 1 ${SEQ}`, timeoutMs: 120_000, submit: true, keys: [], paste: true });
  through.push(now() - t0);
  if (r.commandExitCode !== 0 || !r.output.endsWith(`${SEQ}\n`)) throw new Error(`seq failed: ${r.reason}`);
}
const ratio = median(drains) / median(through);
row(
  `seq 1 ${SEQ} through a terminal (vs raw node-pty drain), median ms`,
  fmt(median(through), 0),
  fmt(median(drains), 0),
  '-',
);
row(`  throughput, raw drain time / terminal time`, fmt(ratio, 2), '1', '≥ 0.5×');
// A flood (`yes`) the model gives up on: the cancel must not wait for a backlog of output to be parsed.
const floods = [];
for (let i = 0; i < (quick ? 3 : 10); i++) {
  const pending = session.send({ text: 'yes', timeoutMs: 30_000, submit: true, keys: [], paste: true });
  await new Promise((r) => setTimeout(r, 1_000));
  const t0 = now();
  void session.cancel(10_000);
  const r = await pending;
  floods.push(now() - t0);
  if (!r.cancelled || r.reason !== 'stdin_read') throw new Error(`flood cancel failed: ${JSON.stringify(r.reason)}`);
}
row('cancel of a yes flood → prompt back, median ms', fmt(median(floods), 1), '-', '≤ 500 ms');
row('cancel of a yes flood → prompt back, max ms', fmt(Math.max(...floods), 1), '-', '-');
globalThis.gc?.();
const heap = process.memoryUsage();
row(
  'memory after it: heap used / rss, MiB (scrollback limit 256 Ki chars)',
  `${fmt(heap.heapUsed / 2 ** 20, 1)} / ${fmt(heap.rss / 2 ** 20, 0)}`,
  '-',
  'bounded',
);
await session.close();
await subprocess.dispose();

console.log('\nmarkdown:\n');
console.log('| measure | dsh | anchor | goal |\n| --- | --: | --: | --- |');
for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.anchor} | ${r.goal} |`);
