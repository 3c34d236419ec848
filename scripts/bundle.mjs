#!/usr/bin/env node
// Builds the single-file bundle of the `dsh` command line (packages/dsh/dist/dsh.mjs) from the
// tsc output: one file instead of a few hundred ES modules halves the CLI's start-up (module
// resolution and loading dominate it). node-pty (a native addon) and the zstd WebAssembly
// module stay external: they load their own files at run time. Run after `tsc -b`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [join(repo, 'packages/dsh/dist/cli/main.js')],
  outfile: join(repo, 'packages/dsh/dist/dsh.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@lydell/node-pty', '@bokuweb/zstd-wasm'],
  // CommonJS dependencies inside an ES module bundle still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __dshRequire } from 'node:module'; const require = __dshRequire(import.meta.url);",
  },
  logLevel: 'warning',
  legalComments: 'none',
});
