/**
 * The runtime server as a program: `node server-entry.js [--containment auto|session]` (or the
 * single-file `runtime-server.mjs`). Exits 0 once its channel ended and every tree is gone.
 */
import { serveRuntimeStdio } from './serve-stdio.js';

const at = process.argv.indexOf('--containment');
const containment = at >= 0 && process.argv[at + 1] === 'session' ? 'session' : 'auto';
serveRuntimeStdio({ containment }).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`dsh runtime server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
