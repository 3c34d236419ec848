/**
 * The known gaps of the fence (docs/threat-model.md, "Known gaps"), by row: for the user named,
 * the attempt still gets through, and the suite checks that it still does, so this list and the
 * threat model stay true. Close a gap, and its row fails until the mark here is removed.
 */
import type { Row } from './types.js';

const INIT_DUMPABLE = "bubblewrap's init is dumpable (it holds no part of the channel)";
const NO_USER_NET = 'an unprivileged dsh cannot attach pasta: its worlds share the host network namespace';
const NO_USER_CGROUP = 'an unprivileged dsh has no writable cgroup of the controllers here: no limits';

/** Gaps by row id. */
export const GAPS: Readonly<Record<string, NonNullable<Row['gap']>>> = {
  'machinery-mem-pid1': { root: INIT_DUMPABLE, user: INIT_DUMPABLE },
  'agents-background-server-network-on': { user: NO_USER_NET },
  'agents-host-loopback-network-on': { user: NO_USER_NET },
  'agents-abstract-socket-network-on': { user: NO_USER_NET },
  'resources-fork-bomb-pids': { user: NO_USER_CGROUP },
  'resources-memory': { user: NO_USER_CGROUP },
};

/** `rows` with their known gaps marked. @throws Error for a gap naming no row. */
export function withGaps(rows: readonly Row[]): Row[] {
  for (const id of Object.keys(GAPS)) {
    if (!rows.some((r) => r.id === id)) throw new Error(`known gap ${id} names no row`);
  }
  return rows.map((row) => (GAPS[row.id] ? { ...row, gap: GAPS[row.id] } : row));
}
