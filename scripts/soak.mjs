#!/usr/bin/env node
// `npm run soak`: 10,000 mixed operations through the tools and the MCP server — one-shot and
// background commands, terminals, sandboxed and unconfined runs, spills kept and over their cap,
// aborts and reloads — then descriptors, processes, zombies, cgroups, disk and memory must be
// back at their baseline; a background `yes` flood must stay within its caps. A short run is
// part of the test suite (packages/dsh/test/soak.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compose } from 'dsh';
import { startMcp } from './soak/mcp-client.mjs';
import { measure } from './soak/measure.mjs';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'dsh', 'bin', 'dsh.js');
/** Memory the host may have grown by after the soak. */
export const RSS_SLACK_BYTES = 10 * 1024 * 1024;
/** Live heap (after a full GC) the host may have grown by: what a leak of objects shows first. */
export const HEAP_SLACK_BYTES = 10 * 1024 * 1024;
/** Descriptors the host may hold beyond its baseline (the runner's own). */
const FD_SLACK = 2;
const MIB = 1024 * 1024;
/** Small caps so spills over their cap and the disk budget are reached quickly. */
const SPILL_CAP = 4 * MIB;
const OUTPUT_BUDGET = 64 * MIB;
/** The budget is enforced at most once a second: what a second of spills may add above it. */
const BUDGET_OVERSHOOT = 32 * MIB;
/** Operations of the warm-up round, at least. */
const WARM_UP_OPS = 200;

/** The operation for index `i`: a fixed mix, in percent. */
const MIX = [
  [30, 'oneshot'],
  [12, 'sandboxed'],
  [4, 'spill-kept'],
  [2, 'spill-over-cap'],
  [10, 'background'],
  [15, 'terminal'],
  [5, 'abort'],
  [1, 'reload'],
  [21, 'mcp'],
];
function kindOf(i) {
  let at = i % 100;
  for (const [weight, kind] of MIX) {
    if (at < weight) return kind;
    at -= weight;
  }
  return 'oneshot';
}

export async function soak({
  ops = 10_000,
  floodMs = 30_000,
  concurrency = 4,
  log = () => undefined,
  rssSlack = RSS_SLACK_BYTES,
} = {}) {
  const root = mkdtempSync(join(tmpdir(), 'dsh-soak-'));
  const outputs = join(root, 'outputs');
  const shell = { maxSpillBytes: SPILL_CAP };
  const output = { dir: outputs, maxBytes: OUTPUT_BUDGET };
  const open = await compose({
    preset: 'full',
    config: { workspace: root, sandbox: { mode: 'danger-full-access' }, shell, output },
  });
  const fenced = await compose({
    preset: 'base',
    config: { workspace: root, sandbox: { mode: 'workspace-write' }, shell, output },
  });
  const mcp = await startMcp(BIN, root, ['--sandbox', 'danger-full-access']);
  const a = open.createAgent('soak');
  const b = fenced.createAgent('soak');
  const terminals = [];
  const counts = {};
  const failures = [];
  const check = (kind, ok, detail) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    if (!ok && failures.length < 20) failures.push(`${kind}: ${detail}`);
  };
  const exitOf = (text) => /\[exit code: (\d+)\]/.exec(text)?.[1];
  const run = {
    oneshot: async (i) => {
      const r = await open.tools.call(a, 'bash', { command: `echo op-${i}` });
      check('oneshot', r.text.startsWith(`op-${i}\n`), r.text.slice(0, 80));
    },
    sandboxed: async (i) => {
      const r = await fenced.tools.call(b, 'bash', { command: `echo fenced-${i}` });
      check('sandboxed', r.text.startsWith(`fenced-${i}\n`), r.text.slice(0, 80));
    },
    'spill-kept': async () => {
      const r = await open.tools.call(a, 'bash', { command: "head -c 1500000 /dev/zero | tr '\\0' k; echo" });
      check('spill-kept', exitOf(r.text) === '0' && /complete stdout is in/.test(r.text), r.text.slice(-200));
    },
    'spill-over-cap': async () => {
      const r = await open.tools.call(a, 'bash', {
        command: `head -c ${SPILL_CAP + MIB} /dev/zero | tr '\\0' o; echo`,
      });
      check('spill-over-cap', exitOf(r.text) === '0' && /no complete copy was kept/.test(r.text), r.text.slice(-200));
    },
    background: async (i) => {
      const started = await open.tools.call(a, 'bash', {
        command: `sleep 0.0${i % 9}; echo bg-${i}`,
        run_in_background: true,
      });
      const id = started.data.job_id;
      if (i % 3 === 0) await open.tools.call(a, 'job_kill', { job_id: id });
      else {
        await open.ctx.jobs.wait(a, id, { timeoutMs: 10_000 });
        const out = await open.tools.call(a, 'job_output', { job_id: id });
        check('background', out.text.includes(`bg-${i}`), out.text.slice(0, 80));
        return;
      }
      check('background', true);
    },
    terminal: async (i) => {
      if (terminals.length < 3 || i % 20 === 0) {
        if (terminals.length >= 3) await open.tools.call(a, 'terminal_close', { terminal_id: terminals.shift() });
        terminals.push((await open.tools.call(a, 'terminal_open', {})).data.terminal_id);
      }
      const id = terminals[i % terminals.length];
      const r = await open.tools.call(a, 'terminal_send', { terminal_id: id, input: `echo term-${i}` });
      check(
        'terminal',
        r.isError ? r.data.error?.code === 'TERMINAL_BUSY' : r.text.includes(`term-${i}`),
        r.text.slice(0, 80),
      );
    },
    abort: async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 20);
      const r = await open.tools.call(a, 'bash', { command: 'sleep 5' }, { signal: ac.signal });
      check('abort', r.data?.aborted === true || r.data?.error?.code === 'ABORTED', r.text.slice(-120));
    },
    reload: async () => {
      await open.reload('bash-local');
      check('reload', true);
    },
    mcp: async (i) => {
      const r = await mcp.call('bash', { command: `echo mcp-${i}` });
      check('mcp', r.result?.content?.[0]?.text?.startsWith(`mcp-${i}\n`), JSON.stringify(r).slice(0, 120));
    },
  };
  // A warm-up round at full concurrency (code paths compiled, buffers and heaps at their working
  // size), then the baseline with nothing running: what grows after it is a leak.
  let next = 0;
  let end = 0;
  const worker = async () => {
    while (next < end) {
      const i = next++;
      await run[kindOf(i)](i).catch((e) => check(kindOf(i), false, `threw ${e?.code ?? e}`));
      if (i % 1000 === 0) {
        const m = measure([]);
        log(
          `${i} / ${ops}: rss ${(m.rss / MIB).toFixed(1)} heap ${(m.heap / MIB).toFixed(1)} external ${(m.external / MIB).toFixed(1)} MiB`,
        );
      }
    }
  };
  const round = async (count) => {
    end = next + count;
    await Promise.all(Array.from({ length: concurrency }, worker));
    for (const id of terminals.splice(0)) await open.tools.call(a, 'terminal_close', { terminal_id: id });
  };
  await round(Math.max(WARM_UP_OPS, Math.ceil(ops / 10)));
  const baseline = measure([outputs]);
  const from = next;
  await round(ops);
  const after = measure([outputs]);
  const flood = await floodOf(open, a, outputs, floodMs);
  await Promise.all([open.dispose(), fenced.dispose(), mcp.close()]);
  // The watchdog lets go of an idle host after WATCHDOG_IDLE_MS.
  const settleUntil = Date.now() + 10_000;
  while (measure([]).live > 0 && Date.now() < settleUntil) await new Promise((r) => setTimeout(r, 200));
  const disposed = measure([outputs]);
  rmSync(root, { recursive: true, force: true });
  const violations = [...failures];
  const grew = (what, by, slack) => by > slack && violations.push(`${what} grew by ${by} (allowed ${slack})`);
  grew('fds', after.fds - baseline.fds, FD_SLACK);
  grew('processes', after.live - baseline.live, 0);
  grew('zombies', after.zombies, 0);
  grew('populated cgroups', after.cgroups.populated - baseline.cgroups.populated, 0);
  grew('rss', after.rss - baseline.rss, rssSlack);
  grew('heap', after.heap - baseline.heap, HEAP_SLACK_BYTES);
  grew('disk', after.disk.bytes, OUTPUT_BUDGET + BUDGET_OVERSHOOT);
  grew('flood disk', flood.diskBytes, SPILL_CAP);
  grew('flood rss', flood.rssGrowth, 64 * MIB);
  grew('processes after dispose', disposed.live, 0);
  grew('files after dispose', disposed.disk.files, 0);
  return { ops: next - from, counts, baseline, after, disposed, flood, violations };
}

/** A background `yes` for `ms`: disk and memory while it runs, then it is killed. */
async function floodOf(dsh, agent, outputs, ms) {
  const before = measure([outputs]);
  const started = await dsh.tools.call(agent, 'bash', { command: 'yes', run_in_background: true });
  let diskBytes = 0;
  let rssGrowth = 0;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, Math.min(500, ms)));
    const now = measure([outputs]);
    // The flood's own files: the ones that were not there before it (older ones may be swept).
    let own = 0;
    for (const [path, size] of now.disk.sizes) if (!before.disk.sizes.has(path)) own += size;
    diskBytes = Math.max(diskBytes, own);
    rssGrowth = Math.max(rssGrowth, now.rss - before.rss);
  }
  await dsh.tools.call(agent, 'job_kill', { job_id: started.data.job_id });
  return { ms, diskBytes, rssGrowth };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const t0 = Date.now();
  const report = await soak({
    ops: arg('--ops', 10_000),
    floodMs: arg('--flood-ms', 30_000),
    log: (m) => console.error(m),
  });
  const mib = (b) => (b / MIB).toFixed(1);
  console.log(
    `soak: ${report.ops} operations in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    JSON.stringify(report.counts),
  );
  console.log(
    `  fds ${report.baseline.fds} → ${report.after.fds}; processes ${report.baseline.live} → ${report.after.live}; zombies ${report.after.zombies}`,
  );
  console.log(
    `  populated cgroups ${report.baseline.cgroups.populated} → ${report.after.cgroups.populated}; RSS +${mib(report.after.rss - report.baseline.rss)} MiB (allowed ${mib(RSS_SLACK_BYTES)}); heap +${mib(report.after.heap - report.baseline.heap)} MiB`,
  );
  console.log(
    `  output disk ${mib(report.after.disk.bytes)} MiB; flood ${report.flood.ms} ms: disk ${mib(report.flood.diskBytes)} MiB, RSS +${mib(report.flood.rssGrowth)} MiB`,
  );
  console.log(
    report.violations.length === 0
      ? 'soak: clean'
      : `soak: ${report.violations.length} violations\n${report.violations.join('\n')}`,
  );
  process.exit(report.violations.length === 0 ? 0 : 1);
}
