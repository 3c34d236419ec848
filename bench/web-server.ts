// The server side of bench/web.ts, in its own process (run with --expose-gc) so that its memory
// is the server's alone: composes `full` as `dsh web` does, serves the page, prints its URL, and
// answers each `mem` line on stdin with its live heap (after a collection) and RSS, in MiB.
import { createInterface } from 'node:readline';
import { serveWeb } from '@dsh/web';
import { compose } from 'dsh';

const workspace = process.argv[2] ?? process.cwd();
const dsh = await compose({ preset: 'full', config: { workspace, sandbox: { mode: 'danger-full-access' } } });
const web = await serveWeb({ host: dsh });
process.stdout.write(`${JSON.stringify({ url: web.url })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'mem') continue;
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ heap: m.heapUsed / 2 ** 20, rss: m.rss / 2 ** 20 })}\n`);
}
await web.close();
await dsh.dispose();
