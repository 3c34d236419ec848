#!/usr/bin/env node
// The dsh command line; see packages/dsh/src/cli/main.ts. It runs from the single-file bundle
// (dist/dsh.mjs, built by `npm run build`), which starts about twice as fast as the module tree.
import { main } from '../dist/dsh.mjs';

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    process.stderr.write(`dsh: ${error?.message ?? error}\n`);
    process.exitCode = 1;
  },
);
