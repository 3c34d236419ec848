#!/usr/bin/env node
// `npm run bench` (part 5): execution worlds (issue 9). A confined `true` through the agent's
// sandbox world against an unconfined one, the cost of making a world, and spawn → done through
// a channel to a runtime server on this machine against the local runtime, all in the same run.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { connectChannel, SERVER_ENTRY } from '@dsh/subprocess-remote';
import { compose } from 'dsh';
import { fmt, median, timed } from './lib.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 100 : 400;
const WORLDS = quick ? 5 : 20;
const root = mkdtempSync(join('/var/tmp', 'dsh-bench-world-'));
const row = (what, value, anchor, ratio, goal) =>
  console.log(`${what.padEnd(62)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);
console.log(`dsh world bench (node ${process.version}, ${CALLS} calls, ${WORLDS} worlds)\n`);
console.log(`${'measure'.padEnd(62)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

const spec = (argv) => ({
  argv,
  cwd: tmpdir(),
  env: {},
  stdin: { kind: 'ignore' },
  stdout: { kind: 'collect', maxBytes: 1 << 20 },
  stderr: { kind: 'collect', maxBytes: 1 << 20 },
  graceMs: 1000,
});

try {
  // 1. A confined `true` (the agent's world) against an unconfined one, through ctx.shell.
  const confined = await compose({ config: { workspace: root, sandbox: { mode: 'workspace-write' } } });
  const open = await compose({ config: { workspace: root, sandbox: { mode: 'danger-full-access' } } });
  const agent = confined.createAgent('bench');
  const policy = confined.ctx.get('sandboxPolicy').resolve(agent);
  const [cs, os] = [confined.ctx.get('shell'), open.ctx.get('shell')];
  const inWorld = cs.resolve({ command: 'true', sandbox: policy });
  const unconfined = os.resolve({ command: 'true' });
  for (let i = 0; i < 30; i++) {
    await cs.run(inWorld);
    await os.run(unconfined);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < CALLS; i++) {
    a.push(await timed(() => cs.run(inWorld)));
    b.push(await timed(() => os.run(unconfined)));
  }
  row(
    "confined `true` (agent's world) over unconfined, median ms",
    `+${fmt(median(a) - median(b), 3)}`,
    fmt(median(b), 3),
    `${fmt(median(a) / median(b))}x`,
    '≤ +1 ms',
  );
  await confined.dispose();
  await open.dispose();

  // 2. Making a world: from the first confined call of a new agent to its answer, less a warm
  // call, in one composition (its one-time probe of bubblewrap is not an agent's cost); against
  // the start of a bare Node.js, which the world's server is, measured in the same run.
  const made = [];
  const bare = [];
  const d = await compose({ config: { workspace: root, sandbox: { mode: 'workspace-write' } } });
  const sh = d.ctx.get('shell');
  await sh.run(sh.resolve({ command: 'true', sandbox: d.ctx.get('sandboxPolicy').resolve(d.createAgent('probe')) }));
  for (let i = 0; i < WORLDS; i++) {
    const s = sh.resolve({ command: 'true', sandbox: d.ctx.get('sandboxPolicy').resolve(d.createAgent(`w${i}`)) });
    const first = await timed(() => sh.run(s));
    const warm = await timed(() => sh.run(s));
    made.push(first - warm);
    bare.push(await timed(() => new Promise((done) => execFile(process.execPath, ['-e', '0'], done))));
  }
  await d.dispose();
  row(
    "making an agent's world (first call over a warm one), median ms",
    fmt(median(made), 1),
    fmt(median(bare), 1),
    `${fmt(median(made) / median(bare))}x`,
    '≤ 150 ms (anchor: a bare node -e 0)',
  );

  // 3. spawn → done through a channel to a local runtime server, against the local runtime.
  const host = new LocalSubprocessRuntime();
  const remote = connectChannel([process.execPath, SERVER_ENTRY], host, { cwd: tmpdir() });
  await remote.ready;
  for (let i = 0; i < 30; i++) {
    await remote.spawn(spec(['true'])).done;
    await host.spawn(spec(['true'])).done;
  }
  const viaChannel = [];
  const viaLocal = [];
  for (let i = 0; i < CALLS; i++) {
    viaChannel.push(await timed(() => remote.spawn(spec(['true'])).done));
    viaLocal.push(await timed(() => host.spawn(spec(['true'])).done));
  }
  row(
    'spawn → done `true` through a channel over local, median ms',
    `+${fmt(median(viaChannel) - median(viaLocal), 3)}`,
    fmt(median(viaLocal), 3),
    `${fmt(median(viaChannel) / median(viaLocal))}x`,
    '≤ +0.5 ms',
  );
  await remote.dispose();
  await host.dispose();
} finally {
  rmSync(root, { recursive: true, force: true });
}
