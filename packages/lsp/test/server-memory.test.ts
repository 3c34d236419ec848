/**
 * What a language server's host keeps of its answers: nothing, once a request is answered (a
 * race of each request against the server's exit used to keep every answer until the server
 * ended). Real processes: a small JSON-RPC server (vscode-jsonrpc) started through ctx.subprocess.
 */
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support.js';
import { LanguageServer } from '../src/server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/big-answer-server.mjs', import.meta.url));
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the language server host', () => {
  it('keeps nothing of answered requests: 300 answers of 200,000 characters leave the live heap where it was', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const runtime = new LocalSubprocessRuntime();
    cleanups.push(() => runtime.dispose());
    const server = new LanguageServer(runtime, 'fake', tempDir('dsh-lsp-memory-'), {
      command: [process.execPath, FIXTURE],
      extensions: {},
      rootMarkers: [],
    });
    cleanups.push(() => server.dispose());
    await server.ready;
    const heap = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    for (let n = 0; n < 10; n++) await server.request<string>('test/big', { n }); // warm-up
    const before = heap();
    let chars = 0;
    for (let n = 0; n < 300; n++) chars += (await server.request<string>('test/big', { n })).length;
    expect(chars).toBeGreaterThan(300 * 200_000);
    // Keeping the answers would hold 60 M characters; allow a small fraction of one answer per request.
    expect(heap() - before).toBeLessThan(8 * 1024 * 1024);
  });
});
