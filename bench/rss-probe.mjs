// Collects N bytes of /dev/zero in a fresh process and prints its peak RSS growth, so each
// size is measured without the others' heap history. `raw` as 2nd argument measures the
// anchor instead: a bare child_process pipe drain of the same stream.
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { rawSpawn } from './lib.mjs';

const bytes = Number(process.argv[2]);
const raw = process.argv[3] === 'raw';
const producer = ['head', '-c', String(bytes), '/dev/zero'];
const rt = new LocalSubprocessRuntime();
const before = process.memoryUsage().rss;
if (raw) {
  const r = await rawSpawn(producer[0], producer.slice(1));
  if (r.bytes !== bytes) throw new Error(`drained ${r.bytes} of ${bytes}`);
} else {
  const h = rt.spawn({
    argv: producer,
    cwd: '/',
    env: {},
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1024 * 1024 },
    stderr: { kind: 'collect', maxBytes: 64 * 1024 },
    graceMs: 1000,
  });
  await h.done;
  if (h.stdoutReader.totalBytes !== bytes) throw new Error(`collected ${h.stdoutReader.totalBytes} of ${bytes}`);
}
const peak = process.resourceUsage().maxRSS * 1024;
await rt.dispose();
process.stdout.write(JSON.stringify({ bytes, raw, before, peak, growth: peak - before }));
