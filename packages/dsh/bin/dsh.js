#!/usr/bin/env node
// The dsh command line; see packages/dsh/src/cli.ts.
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    process.stderr.write(`dsh: ${error?.message ?? error}\n`);
    process.exitCode = 1;
  },
);
