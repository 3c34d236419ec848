#!/usr/bin/env node
// `npm run bench`: ctx.subprocess against its raw anchors, measured in the same run.
// Prints ratios (ours / anchor); goals from issue 2 are printed beside them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { execa } from 'execa';
import { fmt, GiB, MiB, median, rawSpawn, rawSpawnToFile, runJson, timed } from './lib.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 100 : 500;
const STREAM = quick ? 256 * MiB : GiB;
const RSS_SIZES = quick ? [64 * MiB, 256 * MiB] : [64 * MiB, GiB, 4 * GiB];
const rt = new LocalSubprocessRuntime();
const rtSession = new LocalSubprocessRuntime({ containment: 'session' });
const collect = { kind: 'collect', maxBytes: MiB };
const spec = (argv, over = {}) => ({
  argv,
  cwd: '/',
  env: {},
  stdin: { kind: 'ignore' },
  stdout: collect,
  stderr: collect,
  graceMs: 1000,
  ...over,
});
const rows = [];
const row = (what, value, anchor, ratio, goal) => {
  rows.push({ what, value, anchor, ratio, goal });
  console.log(`${what.padEnd(44)} ${value.padStart(14)} ${anchor.padStart(14)} ${ratio.padStart(8)}  ${goal}`);
};

console.log(`dsh bench (node ${process.version}, ${CALLS} calls, ${STREAM / MiB} MiB stream)\n`);
console.log(`${'measure'.padEnd(44)} ${'dsh'.padStart(14)} ${'anchor'.padStart(14)} ${'ratio'.padStart(8)}  goal`);

// 1. spawn → done of `true`, interleaved so drift hits all three alike.
const ours = [];
const oursSession = [];
const raw = [];
const viaExeca = [];
for (let i = 0; i < 20; i++) {
  await rawSpawn('true', []);
  await rt.spawn(spec(['true'])).done;
  await rtSession.spawn(spec(['true'])).done;
  await execa('true');
}
for (let i = 0; i < CALLS; i++) {
  raw.push(await timed(() => rawSpawn('true', [])));
  ours.push(await timed(() => rt.spawn(spec(['true'])).done));
  oursSession.push(await timed(() => rtSession.spawn(spec(['true'])).done));
  viaExeca.push(await timed(() => execa('true')));
}
const [mo, ms, mr, me] = [median(ours), median(oursSession), median(raw), median(viaExeca)];
const mode = rt.containment;
row(`spawn→done \`true\` [${mode}], median ms (vs raw)`, fmt(mo, 3), fmt(mr, 3), `${fmt(mo / mr)}x`, '≤ 1.10x');
row('spawn→done `true` [session], median ms (vs raw)', fmt(ms, 3), fmt(mr, 3), `${fmt(ms / mr)}x`, '≤ 1.10x');
row(`spawn→done \`true\` [${mode}], median ms (vs execa 9)`, fmt(mo, 3), fmt(me, 3), `${fmt(mo / me)}x`, '< 1.00x');

// 2. collect throughput of a large stream against a raw pipe drain (best of 3, interleaved).
const producer = ['head', '-c', String(STREAM), '/dev/zero'];
const mbps = (ms) => STREAM / MiB / (ms / 1000);
const spillDir = mkdtempSync(join(tmpdir(), 'dsh-bench-'));
const best = { raw: Infinity, rawWrite: Infinity, collect: Infinity, spill: Infinity };
try {
  for (let round = 0; round < 3; round++) {
    best.raw = Math.min(best.raw, await timed(() => rawSpawn(producer[0], producer.slice(1))));
    best.collect = Math.min(
      best.collect,
      await timed(async () => {
        const h = rt.spawn(spec(producer));
        await h.done;
        if (h.stdoutReader.totalBytes !== STREAM) throw new Error('short collect');
      }),
    );
    const file = join(spillDir, 'raw-anchor');
    best.rawWrite = Math.min(best.rawWrite, await timed(() => rawSpawnToFile(producer[0], producer.slice(1), file)));
    rmSync(file, { force: true });
    best.spill = Math.min(
      best.spill,
      await timed(async () => {
        const h = rt.spawn(spec(producer, { stdout: { ...collect, spill: { dir: spillDir, maxBytes: 2 * STREAM } } }));
        await h.done;
        const path = h.stdoutReader.read(h.stdoutReader.totalBytes).spillPath;
        if (!path) throw new Error('spill missing');
        rmSync(path);
      }),
    );
  }
} finally {
  rmSync(spillDir, { recursive: true, force: true });
}
const ratio = (anchorMs, oursMs) => `${fmt(anchorMs / oursMs)}x`;
row(
  'collect throughput, MiB/s (vs raw drain)',
  fmt(mbps(best.collect), 0),
  fmt(mbps(best.raw), 0),
  ratio(best.raw, best.collect),
  '≥ 0.90x',
);
row(
  'collect + spill, MiB/s (vs raw drain)',
  fmt(mbps(best.spill), 0),
  fmt(mbps(best.raw), 0),
  ratio(best.raw, best.spill),
  '≥ 0.90x',
);
row(
  'collect + spill, MiB/s (vs raw drain + file write)',
  fmt(mbps(best.spill), 0),
  fmt(mbps(best.rawWrite), 0),
  ratio(best.rawWrite, best.spill),
  '≥ 0.90x',
);

// 3. peak RSS growth while collecting, each size in a fresh process, beside a raw drain's.
const probe = fileURLToPath(new URL('./rss-probe.mjs', import.meta.url));
for (const size of RSS_SIZES) {
  const ours = await runJson(probe, [String(size)]);
  const anchor = await runJson(probe, [String(size), 'raw']);
  const label = size >= GiB ? `${size / GiB} GiB` : `${size / MiB} MiB`;
  row(
    `peak RSS growth collecting ${label}, MiB`,
    fmt(ours.growth / MiB, 1),
    fmt(anchor.growth / MiB, 1),
    '-',
    'flat; ≤ maxBytes (1) + 32 MiB',
  );
}

await rt.dispose();
await rtSession.dispose();
console.log('\nmarkdown:\n');
console.log('| measure | dsh | anchor | ratio | goal |\n| --- | --: | --: | --: | --- |');
for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.anchor} | ${r.ratio} | ${r.goal} |`);
