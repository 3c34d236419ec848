#!/usr/bin/env node
// A tour of ctx.subprocess on real processes: collect (bounded tail + spill), tail reads
// of a running process, and tree termination. Run: npm run example
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';

const runtime = new LocalSubprocessRuntime();
const spillDir = mkdtempSync(join(tmpdir(), 'dsh-demo-'));
const base = {
  cwd: process.cwd(),
  env: {},
  stdin: { kind: 'ignore' },
  stderr: { kind: 'collect', maxBytes: 4096 },
  graceMs: 500,
};

try {
  console.log('1. collect: `seq 1 100000` with a 64-byte tail and a spill file');
  const seq = runtime.spawn({
    ...base,
    argv: ['seq', '1', '100000'],
    stdout: { kind: 'collect', maxBytes: 64, spill: { dir: spillDir, maxBytes: 10 * 1024 * 1024 } },
  });
  console.log('   outcome:', await seq.done);
  const all = seq.stdoutReader.read(0);
  console.log(`   totalBytes=${seq.stdoutReader.totalBytes} lossy=${all.lossy}`);
  console.log(`   kept tail: ${JSON.stringify(all.text)}`);
  console.log(`   spill file holds ${readFileSync(all.spillPath).length} bytes (the whole stream)`);

  console.log('\n2. tail: incremental, non-consuming reads of a running process');
  const ticker = runtime.spawn({
    ...base,
    argv: ['sh', '-c', 'for i in 1 2 3 4 5; do echo "tick $i"; sleep 0.1; done'],
    stdout: { kind: 'collect', maxBytes: 4096 },
  });
  let offset = 0;
  while (!ticker.stdoutReader.settled) {
    await new Promise((r) => setTimeout(r, 150));
    const got = ticker.stdoutReader.read(offset);
    if (got.text) console.log(`   new since ${offset}: ${JSON.stringify(got.text)}`);
    offset = got.nextOffset;
  }
  console.log(`   a second reader from 0 still sees everything: ${JSON.stringify(ticker.stdoutReader.read(0).text)}`);

  console.log('\n3. terminate: a tree that ignores SIGTERM ends by SIGKILL after graceMs');
  const stubborn = runtime.spawn({
    ...base,
    argv: ['sh', '-c', 'trap "" TERM; sleep 60 & echo "grandchild $!"; wait'],
    stdout: { kind: 'collect', maxBytes: 4096 },
  });
  while (!stubborn.stdoutReader.read(0).text.includes('grandchild')) await new Promise((r) => setTimeout(r, 20));
  const started = Date.now();
  await stubborn.terminate();
  console.log(`   ${stubborn.stdoutReader.read(0).text.trim()} -> outcome:`, await stubborn.done);
  console.log(`   whole tree gone after ${Date.now() - started} ms (grace ${base.graceMs} ms)`);
} finally {
  await runtime.dispose();
  rmSync(spillDir, { recursive: true, force: true });
}
