#!/usr/bin/env node
// Builds the single-file bundles from the tsc output (run after `tsc -b`):
// - packages/dsh/dist/dsh.mjs, the `dsh` command line: one file instead of a few hundred ES
//   modules halves its start-up (module resolution and loading dominate it);
// - packages/subprocess/subprocess-remote/dist/runtime-server.mjs, the runtime server: what a
//   sandbox world starts inside its fence, and what dsh sends to a remote machine that has
//   Node.js but no dsh.
// node-pty (a native addon) and the zstd WebAssembly module stay external: they load their own
// files at run time (where they cannot, terminals report it, and logs stay uncompressed).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
// The runtime server is found next to the module that starts it (`../dist/runtime-server.mjs`
// from it): inside the dsh bundle that is packages/dsh/dist, so the server is built there too.
const server = 'packages/subprocess/subprocess-remote/dist/server-entry.js';
const bundles = [
  ['packages/dsh/dist/cli/main.js', 'packages/dsh/dist/dsh.mjs'],
  [server, 'packages/subprocess/subprocess-remote/dist/runtime-server.mjs'],
  [server, 'packages/dsh/dist/runtime-server.mjs'],
];
for (const [entry, out] of bundles) {
  await build({
    entryPoints: [join(repo, entry)],
    outfile: join(repo, out),
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
}

// The runtime payload: what dsh sends to a remote machine that has Node.js but no dsh — the
// single-file server and the node-pty it loads (this platform's prebuilt binary). One JSON line
// of [name, bytes, mode] entries, then the files' bytes; the boot loader checks it against the
// first 16 hex digits of its SHA-256 (its cache key) and unpacks it.
const { createHash } = await import('node:crypto');
const { readdirSync, readFileSync, statSync, writeFileSync } = await import('node:fs');
const files = [['runtime-server.mjs', join(repo, 'packages/subprocess/subprocess-remote/dist/runtime-server.mjs')]];
const walk = (dir, as) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name), `${as}/${e.name}`);
    else if (e.isFile()) files.push([`${as}/${e.name}`, join(dir, e.name)]);
  }
};
const pty = join(repo, 'node_modules/@lydell');
for (const name of ['node-pty', `node-pty-${process.platform}-${process.arch}`]) {
  try {
    walk(join(pty, name), `node_modules/@lydell/${name}`);
  } catch {
    // no prebuilt for this platform: terminals there report PTY_UNAVAILABLE
  }
}
const bodies = files.map(([, path]) => readFileSync(path));
const header = JSON.stringify(files.map(([name, path], i) => [name, bodies[i].length, statSync(path).mode & 0o777]));
const payload = Buffer.concat([Buffer.from(`${header}\n`), ...bodies]);
const hash = createHash('sha256').update(payload).digest('hex').slice(0, 16);
for (const dir of ['packages/subprocess/subprocess-remote/dist', 'packages/dsh/dist']) {
  writeFileSync(join(repo, dir, 'runtime-payload.bin'), payload);
  writeFileSync(
    join(repo, dir, 'runtime-payload.json'),
    `${JSON.stringify({ hash, bytes: payload.length, files: files.length })}\n`,
  );
}
