#!/usr/bin/env node
// `npm run bench` (part 2): ctx.shell and the bash tool against raw anchors in the same run, and
// 200 concurrent background jobs. Prints ratios; goals from issue 3 beside them.
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { compose } from 'dsh';
import { fmt, median, timed } from './lib.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 100 : 300;
const JOBS = quick ? 50 : 200;
const JOB_SECONDS = quick ? 3 : 10;

/** Raw anchor: bash -c true with both pipes drained. */
function rawBash() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', resolve);
  });
}

const rows = [];
const row = (what, value, anchor, ratio, goal) => {
  rows.push({ what, value, anchor, ratio, goal });
  console.log(`${what.padEnd(52)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);
};
console.log(`dsh shell bench (node ${process.version}, ${CALLS} calls, ${JOBS} jobs × ${JOB_SECONDS}s)\n`);
console.log(`${'measure'.padEnd(52)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

for (const containment of ['auto', 'session']) {
  const dsh = await compose({ config: { subprocess: { containment }, sandbox: { mode: 'danger-full-access' } } });
  const shell = dsh.ctx.get('shell');
  const agent = dsh.createAgent('bench');
  const spec = shell.resolve({ command: 'true' });
  for (let i = 0; i < 20; i++) {
    await rawBash();
    await shell.run(spec);
    await dsh.tools.call(agent, 'bash', { command: 'true' });
  }
  const raw = [];
  const ours = [];
  const tool = [];
  for (let i = 0; i < CALLS; i++) {
    raw.push(await timed(rawBash));
    ours.push(await timed(() => shell.run(shell.resolve({ command: 'true' }))));
    tool.push(await timed(() => dsh.tools.call(agent, 'bash', { command: 'true' })));
  }
  const [mr, mo, mt] = [median(raw), median(ours), median(tool)];
  const mode = dsh.ctx.get('subprocess').containment;
  row(`ctx.shell.run('true') [${mode}], median ms`, fmt(mo, 3), fmt(mr, 3), `${fmt(mo / mr)}x`, '≤ 1.15x');
  row(`tools.call bash overhead over shell.run [${mode}], ms`, fmt(mt - mo, 3), '-', '-', '≤ 1 ms');
  await dsh.dispose();
}

// A confined `true` (bubblewrap, workspace-write) against an unconfined one, same run.
{
  const dsh = await compose({ config: { sandbox: { mode: 'workspace-write' } } });
  const shell = dsh.ctx.get('shell');
  const policy = dsh.ctx.get('sandboxPolicy');
  const confined = shell.resolve({ command: 'true', sandbox: policy.resolve(undefined, 'workspace-write') });
  const open = shell.resolve({ command: 'true', sandbox: policy.resolve(undefined, 'danger-full-access') });
  for (let i = 0; i < 10; i++) {
    await shell.run(confined);
    await shell.run(open);
  }
  const [c, u] = [[], []];
  for (let i = 0; i < CALLS / 3; i++) {
    c.push(await timed(() => shell.run(confined)));
    u.push(await timed(() => shell.run(open)));
  }
  row(
    'confined `true` overhead over unconfined, median ms',
    fmt(median(c) - median(u), 3),
    fmt(median(u), 3),
    `${fmt(median(c) / median(u))}x`,
    '≤ 10 ms',
  );
  await dsh.dispose();
}

// 200 concurrent background jobs printing continuously; a reader polls them like a model would.
const dsh = await compose({
  config: {
    sandbox: { mode: 'danger-full-access' },
    jobs: { maxRunningPerOwner: JOBS },
    shell: { maxOutputBytes: 64 * 1024, maxSpillBytes: 1024 * 1024 },
  },
});
const agent = dsh.createAgent('bench');
// 100 lines/s per job with no fork per line: the builtin read times out on an idle pipe.
const printer = 'exec 3< <(sleep 3600); i=0; while :; do i=$((i+1)); echo "job line $i"; read -t 0.01 -u 3; done';
const rssBefore = process.memoryUsage().rss;
const ids = [];
for (let i = 0; i < JOBS; i++) {
  const r = await dsh.tools.call(agent, 'bash', { command: printer, run_in_background: true });
  ids.push(r.data.job_id);
}
const lag = monitorEventLoopDelay({ resolution: 5 });
lag.enable();
let peakRss = process.memoryUsage().rss;
let bytesRead = 0;
const until = Date.now() + JOB_SECONDS * 1000;
while (Date.now() < until) {
  for (const id of ids) bytesRead += (await dsh.tools.call(agent, 'job_output', { job_id: id })).text.length;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await new Promise((r) => setTimeout(r, 500));
}
lag.disable();
const killedAll = Date.now();
await dsh.dispose();
const disposeMs = Date.now() - killedAll;
const p99 = lag.percentile(99) / 1e6;
row(`${JOBS} background jobs: event-loop lag p99, ms`, fmt(p99, 1), '-', '-', '≤ 20 ms');
row(`${JOBS} background jobs: event-loop lag max, ms`, fmt(lag.max / 1e6, 1), '-', '-', '-');
row(
  `${JOBS} background jobs: RSS growth, MiB`,
  fmt((peakRss - rssBefore) / 1024 / 1024, 1),
  '-',
  '-',
  'bounded by per-job caps',
);
row(`${JOBS} background jobs: chars read by job_output`, String(bytesRead), '-', '-', '-');
row(`${JOBS} background jobs: dispose (kill + join all), ms`, String(disposeMs), '-', '-', '-');

console.log('\nmarkdown:\n');
console.log('| measure | dsh | anchor | ratio | goal |\n| --- | --: | --: | --: | --- |');
for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.anchor} | ${r.ratio} | ${r.goal} |`);
