/**
 * Rewrites the red-team section of docs/threat-model.md (between `<!-- redteam:begin -->` and
 * `<!-- redteam:end -->`) from the rows table of packages/dsh/test/redteam; creates the file with
 * just a heading and that section when it does not exist. `--check` only says whether it is
 * current (exit 1 when not).
 *
 *   npx tsx scripts/threat-model-rows.ts [--check]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ROWS } from '../packages/dsh/test/redteam/rows/index.js';
import {
  REGENERATE,
  renderSection,
  SKELETON,
  splice,
  THREAT_MODEL,
} from '../packages/dsh/test/redteam/threat-model.js';

const before = existsSync(THREAT_MODEL) ? readFileSync(THREAT_MODEL, 'utf8') : SKELETON;
const after = splice(before, renderSection(ROWS));
const current = existsSync(THREAT_MODEL) && after === before;
if (process.argv.includes('--check')) {
  process.stdout.write(
    current ? 'docs/threat-model.md is current\n' : `docs/threat-model.md is stale: run ${REGENERATE}\n`,
  );
  process.exitCode = current ? 0 : 1;
} else if (current) {
  process.stdout.write(`docs/threat-model.md is current (${ROWS.length} rows)\n`);
} else {
  writeFileSync(THREAT_MODEL, after);
  process.stdout.write(`docs/threat-model.md: red-team section written (${ROWS.length} rows)\n`);
}
