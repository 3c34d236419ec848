/**
 * The rows table: every attempt of the red-team suite, grouped by class. docs/threat-model.md
 * lists them (scripts/threat-model-rows.ts), and redteam.test.ts runs each as root and as an
 * ordinary user. The resource rows come last: they run alone.
 */
import { agentRows } from './agents.js';
import { cgroupRows } from './cgroups.js';
import { credentialRows } from './credentials.js';
import { escalationRows } from './escalation.js';
import { withGaps } from './gaps.js';
import { kernelKnobRows } from './kernel-knobs.js';
import { kernelMaskedRows } from './kernel-masked.js';
import { linkRows } from './links.js';
import { machineryRows } from './machinery.js';
import { modeRows } from './modes.js';
import { networkByNameRows } from './network-by-name.js';
import { plantedRows } from './planted.js';
import { resourceRows } from './resources.js';
import { socketRows } from './sockets.js';
import { errnoRows } from './syscalls-errno.js';
import { liveSyscallRows } from './syscalls-live.js';
import { ttyRows } from './syscalls-tty.js';
import { checkTable, type Row } from './types.js';

export const ROWS: readonly Row[] = withGaps([
  ...kernelKnobRows,
  ...kernelMaskedRows,
  ...liveSyscallRows,
  ...errnoRows,
  ...ttyRows,
  ...agentRows,
  ...socketRows,
  ...networkByNameRows,
  ...machineryRows,
  ...cgroupRows,
  ...plantedRows,
  ...linkRows,
  ...escalationRows,
  ...credentialRows,
  ...modeRows,
  ...resourceRows,
]);

checkTable(ROWS);
