/**
 * The runtime server as a program: `node server-entry.js [--containment auto|session]
 * [--probe-sandbox]` (or the single-file `runtime-server.mjs`). Exits 0 once its channel ended
 * and every tree is gone. `--probe-sandbox` adds whether bubblewrap works here to `hello`.
 */
import { fileURLToPath } from 'node:url';
import { hostFacts } from './host-facts.js';
import { serveRuntimeStdio } from './serve-stdio.js';

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
