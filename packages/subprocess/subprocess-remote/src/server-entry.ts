/**
 * The runtime server as a program: `node server-entry.js [--containment auto|session]
 * [--probe-sandbox] [--cgroup-fd N]` (or the single-file `runtime-server.mjs`). Exits 0 once its
 * channel ended and every tree is gone. `--probe-sandbox` adds whether bubblewrap works here to
 * `hello`. `--cgroup-fd N`: descriptor N is the writable cgroup directory this server lives in,
 * whose path is read-only here (a sandbox world: its commands cannot move themselves out).
 */

import { fileURLToPath } from 'node:url';
import { useCgroupDescriptor } from '@dsh/subprocess-local';
import { hostFacts } from './host-facts.js';
import { serveRuntimeStdio } from './serve-stdio.js';

const fdAt = process.argv.indexOf('--cgroup-fd');
if (fdAt >= 0) useCgroupDescriptor(Number(process.argv[fdAt + 1]));

const at = process.argv.indexOf('--containment');
const containment = at >= 0 && process.argv[at + 1] === 'session' ? 'session' : 'auto';
const info = hostFacts(fileURLToPath(import.meta.url), process.argv.includes('--probe-sandbox'));
serveRuntimeStdio({ containment, info }).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`dsh runtime server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
