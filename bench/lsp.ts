#!/usr/bin/env -S npx tsx
// `npm run bench` (part 8): ctx.lsp (issue 13) against the same language server driven raw in
// the same run: warm diagnostics after an edit (the file changed on disk, then diagnostics
// asked for), and cold start → first diagnostics. TypeScript (typescript-language-server).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultServers, LspHost } from '@dsh/lsp';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';
import { fmt, median } from './lib.mjs';

const quick = process.argv.includes('--quick');
const EDITS = quick ? 20 : 60;
const now = () => performance.now();
const row = (what: string, value: string, anchor: string, ratio: string, goal: string) =>
  console.log(`${what.padEnd(58)} ${value.padStart(10)} ${anchor.padStart(10)} ${ratio.padStart(8)}  ${goal}`);
const version = (i: number) => `export const n: number = ${i % 2 ? "'not a number'" : i};\n`;

const root = mkdtempSync(join(tmpdir(), 'dsh-bench-lsp-'));
writeFileSync(join(root, 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "noEmit": true } }\n');
const file = join(root, 'a.ts');
writeFileSync(file, version(0));
const runtime = new LocalSubprocessRuntime();
const config = defaultServers().typescript as NonNullable<ReturnType<typeof defaultServers>['typescript']>;
try {
  console.log(`dsh lsp bench (node ${process.version}, ${EDITS} edits)\n`);
  console.log(`${'measure'.padEnd(58)} ${'dsh'.padStart(10)} ${'anchor'.padStart(10)} ${'ratio'.padStart(8)}  goal`);

  // The raw anchor: the same server, the same messages, over a bare child_process.
  const t0 = now();
  const child = spawn(config.command[0] as string, config.command.slice(1), {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const raw = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const uri = pathToFileURL(file).href;
  let wake: (() => void) | null = null;
  raw.onNotification('textDocument/publishDiagnostics', (p: { uri: string }) => {
    if (p.uri === uri) wake?.();
  });
  raw.onRequest('workspace/configuration', (p: { items?: unknown[] }) => (p.items ?? []).map(() => null));
  raw.listen();
  const published = () => new Promise<void>((r) => (wake = r));
  await raw.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'workspace' }],
    // The same capabilities ctx.lsp declares, so the server does the same work for both.
    capabilities: {
      textDocument: { synchronization: { didSave: true }, publishDiagnostics: { relatedInformation: false } },
      workspace: { configuration: true, workspaceFolders: true },
    },
    initializationOptions: config.initializationOptions,
  });
  await raw.sendNotification('initialized', {});
  let first = published();
  await raw.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'typescript', version: 1, text: version(0) },
  });
  await first;
  const rawCold = now() - t0;

  const ours = new LspHost(() => ({ runtime, scope: 'host' }), root, { typescript: config });
  const t1 = now();
  await ours.diagnostics(file);
  const oursCold = now() - t1;

  const o: number[] = [];
  const r: number[] = [];
  for (let i = 1; i <= EDITS; i++) {
    const text = version(i);
    writeFileSync(file, text);
    let t = now();
    await ours.diagnostics(file);
    o.push(now() - t);
    t = now();
    first = published();
    await raw.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: i + 1 },
      contentChanges: [{ text }],
    });
    await first;
    r.push(now() - t);
  }
  const [mo, mr] = [median(o), median(r)];
  row('warm lsp diagnostics after an edit, median ms (vs raw)', fmt(mo, 1), fmt(mr, 1), `${fmt(mo / mr)}x`, '≤ 1.5x');
  row(
    'cold start → first diagnostics, ms (vs raw)',
    fmt(oursCold, 0),
    fmt(rawCold, 0),
    `${fmt(oursCold / rawCold)}x`,
    'record',
  );
  await raw.sendRequest('shutdown');
  await raw.sendNotification('exit');
  child.kill();
  await ours.dispose();
} finally {
  await runtime.dispose();
  rmSync(root, { recursive: true, force: true });
}
