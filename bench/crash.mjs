#!/usr/bin/env node
// `npm run bench` (part 6): ending trees (issue 11). terminate → quiescent of a 50-process
// cooperative tree under the default containment, and how long after a host's SIGKILL the last
// process it started (one-shot, background, terminal and sandboxed trees with setsid and
// double-fork escapees) is gone — the watchdog's work, with dsh dead.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { fmt, median } from './lib.mjs';

const quick = process.argv.includes('--quick');
const TREES = quick ? 5 : 15;
const CRASHES = quick ? 2 : 5;
/** Processes in the cooperative tree: one sh and its sleeping children. */
const TREE_SIZE = 50;
const HOST = fileURLToPath(new URL('../packages/dsh/test/fixtures/crash-host.mjs', import.meta.url));
const row = (what, value, goal) => console.log(`${what.padEnd(62)} ${value.padStart(12)}  ${goal}`);

/** Live (non-zombie) processes whose argv is `sleep <arg>` with `arg` ending in `token`. */
function sleepers(token) {
  let n = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0');
      if (!argv[0]?.endsWith('sleep') || !argv[1]?.endsWith(token)) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${name}/stat`, 'latin1'))) continue;
      n++;
    } catch {
      // gone while we looked
    }
  }
  return n;
}

async function until(test, what, limitMs = 30_000) {
  const end = Date.now() + limitMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
console.log(`dsh crash bench (node ${process.version}, ${TREES} trees, ${CRASHES} host kills)\n`);

// 1. terminate → quiescent: a tree of 50 processes that all end on SIGTERM.
const rt = new LocalSubprocessRuntime();
const ends = [];
for (let i = 0; i < TREES; i++) {
  const token = String(randomInt(100_000, 999_999));
  const script = `for i in $(seq ${TREE_SIZE - 1}); do sleep 9${token} & done; wait`;
  const h = rt.spawn({
    argv: ['sh', '-c', script],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1024 },
    stderr: { kind: 'collect', maxBytes: 1024 },
    graceMs: 5_000,
  });
  await until(() => sleepers(token) === TREE_SIZE - 1, 'the tree to start');
  const t = now();
  await h.terminate();
  ends.push(now() - t);
  if (sleepers(token) !== 0) throw new Error('terminate resolved with members alive');
  await h.done;
}
row(`terminate → quiescent, ${TREE_SIZE}-process tree [${rt.containment}], median ms`, fmt(median(ends), 1), '≤ 50 ms');

// 2. host SIGKILL → the last process it started is gone.
const gone = [];
for (let i = 0; i < CRASHES; i++) {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-crash-'));
  const token = String(randomInt(100_000, 999_999));
  const host = spawn(process.execPath, [HOST, workspace, token], {
    cwd: workspace,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    let out = '';
    host.stdout.on('data', (d) => {
      out += String(d);
    });
    await until(() => out.includes('ready') && sleepers(token) === 12, 'the host to start its trees');
    const t = now();
    host.kill('SIGKILL');
    await until(() => sleepers(token) === 0, 'the dead host’s processes to end', 10_000);
    gone.push(now() - t);
  } finally {
    if (host.exitCode === null) host.kill('SIGKILL');
    rmSync(workspace, { recursive: true, force: true });
  }
}
row('host SIGKILL → last child gone (12 processes), median ms', fmt(median(gone), 1), '≤ 2000 ms');
row('host SIGKILL → last child gone, worst ms', fmt(Math.max(...gone), 1), '≤ 2000 ms; record');
