/**
 * The red-team suite (issue 19): every row of the table, as root and as an ordinary user, through
 * the real dsh (its built bundles) in workspace-write unless the row says otherwise. A row first
 * shows on the host that its target answers; one that cannot be armed here is skipped with the
 * reason (never passed) and listed at the end, and too many of those as root fail the suite.
 * An armed attack passes only when the host saw it stopped; a promise only when it held.
 *
 * DSH_REDTEAM_ROWS=regex runs only the matching rows; DSH_REDTEAM_REPORT=path writes every
 * result as JSON; DSH_REDTEAM_MARKERS=strict also fails rows whose marker text is missing.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, installBundle } from './harness/bundle.js';
import { STRICT_MARKERS } from './harness/markers.js';
import { Pool } from './harness/pool.js';
import { type RowResult, runRow } from './harness/run-row.js';
import { ensureFenceUser, FENCE_USER, type FenceUser, ROOT } from './harness/users.js';
import { ROWS } from './rows/index.js';
import { RAM_LOCK } from './rows/resources.js';
import type { Row } from './rows/types.js';

/**
 * Rows that may be unarmed as root before the suite fails: what a small VM kernel lacks
 * (kexec, loadable modules, SysRq, /proc/kcore, /proc/sched_debug, kernel.modprobe) and a Docker
 * daemon the machine may not run. More than this means the suite proves too little here.
 */
const MAX_UNARMED_AS_ROOT = 10;
/** One row run's test deadline, waiting for a pool slot included. */
const ROW_TIMEOUT_MS = 240_000;

const only = process.env.DSH_REDTEAM_ROWS ? new RegExp(process.env.DSH_REDTEAM_ROWS) : null;
// The long rows that fill memory first (they run one at a time beside the others); the fork
// bombs, which run alone, last.
const rank = (lock: string | undefined) => (lock === RAM_LOCK ? 0 : lock === '*' ? 2 : 1);
const rows = ROWS.filter((r) => !only || only.test(r.id)).sort((a, b) => rank(a.lock) - rank(b.lock));
const results = new Map<string, RowResult>();
const runs = new Map<string, Promise<RowResult>>();
const pool = new Pool();
let suiteRoot = '';
let bundle: Bundle;
let fenceUser: FenceUser;

/**
 * Not an attempt: the suite's own tools work inside a world (a probe that cannot start there
 * would let every row pass). Run first, as each user.
 */
const CANARY: Row = {
  id: 'canary',
  klass: 'modes',
  kind: 'promise',
  title: "the suite's probes run inside a world",
  proof: 'their output',
  arm: async () => null,
  command: (host) => `python3 ${host.bundle.probe} ok; perl -e 'print "perl: ok\\n"'; ${host.live()}echo live: ok`,
  judge(_host, attempt) {
    const works = ['probe: ok', 'perl: ok', 'live: ok'].every((line) => attempt.text.includes(line));
    return { failed: !works, evidence: works ? 'they ran' : 'they did not run' };
  },
};

beforeAll(() => {
  fenceUser = ensureFenceUser();
  suiteRoot = mkdtempSync('/var/tmp/dsh-redteam-');
  chmodSync(suiteRoot, 0o711); // the user reaches its own directories and the bundle, lists nothing
  bundle = installBundle(join(suiteRoot, 'dsh'));
  for (const user of [ROOT, fenceUser]) runs.set(`canary/${user.name}`, runRow(CANARY, user, bundle, suiteRoot));
  // Every run is queued now, in the table's order: the pool, not the test runner, decides what
  // runs at once; each test below waits for its own run.
  for (const row of rows) {
    for (const user of [ROOT, fenceUser]) {
      const key = `${row.id}/${user.name}`;
      const run = pool.run(row.lock, () => runRow(row, user, bundle, suiteRoot));
      runs.set(
        key,
        run.then((r) => {
          results.set(key, r);
          return r;
        }),
      );
    }
  }
});

afterAll(async () => {
  await Promise.all(runs.values()); // a failed test must not leave its run going
  if (suiteRoot) rmSync(suiteRoot, { recursive: true, force: true });
  if (process.env.DSH_REDTEAM_REPORT) {
    writeFileSync(process.env.DSH_REDTEAM_REPORT, `${JSON.stringify([...results.values()], null, 2)}\n`);
  }
}, ROW_TIMEOUT_MS);

/** One word for a run: unarmed, through / broken, held, or error. */
function outcome(r: RowResult | undefined): string {
  if (!r) return '-';
  if (r.error) return 'error';
  if (r.unarmed !== null) return 'unarmed';
  if (r.failed) return r.kind === 'promise' ? 'BROKEN' : 'THROUGH';
  return 'held';
}

function explain(r: RowResult): string {
  const verb = r.kind === 'promise' ? 'the promise broke' : 'the attempt got through';
  return `${r.id} as ${r.user}: ${verb}. Host evidence: ${r.evidence}\n--- rendered tool text ---\n${r.text}`;
}

describe("red team: the suite's own tools", () => {
  for (const who of ['root', FENCE_USER]) {
    it(`run inside a world as ${who}`, async () => {
      const r = (await runs.get(`canary/${who}`)) as RowResult;
      expect(r.error, r.error ?? '').toBeNull();
      expect(r.failed, `the probes do not run inside a world: every row would pass vacuously\n${r.text}`).toBe(false);
    });
  }
});

describe('red team: each attempt as root and as an ordinary user', () => {
  for (const row of rows) {
    for (const who of ['root', FENCE_USER]) {
      it(`${row.id} as ${who}: ${row.title}`, { timeout: ROW_TIMEOUT_MS }, async (ctx) => {
        const r = (await runs.get(`${row.id}/${who}`)) as RowResult;
        if (r.error) throw new Error(`${row.id} as ${who}: ${r.error}`);
        if (r.unarmed !== null) ctx.skip(`not armed on this machine: ${r.unarmed}`);
        const gap = who === 'root' ? row.gap?.root : row.gap?.user;
        if (gap) {
          expect(r.failed, `${row.id} as ${who} is marked a known gap (${gap}) but held: remove the mark`).toBe(true);
          return;
        }
        expect(r.failed, explain(r)).toBe(false);
        if (STRICT_MARKERS && r.marker)
          expect(r.marker.seen, `${row.id}: no ${r.marker.name} marker in\n${r.text}`).toBe(true);
      });
    }
  }
});

describe('red team: what this machine could not arm', () => {
  it(`lists the unarmed rows; at most ${MAX_UNARMED_AS_ROOT} as root`, () => {
    const all = [...results.values()];
    const unarmed = all.filter((r) => r.unarmed !== null);
    const lines = unarmed.map((r) => `  ${r.id} as ${r.user}: ${r.unarmed}`);
    const missingMarkers = all
      .filter((r) => r.marker && !r.marker.seen)
      .map((r) => `${r.id}/${r.user} (${r.marker?.name})`);
    process.stdout.write(
      [
        `red team: ${all.length} runs, ${unarmed.length} not armed on this machine:`,
        ...lines,
        `held without the model-visible marker: ${missingMarkers.length === 0 ? 'none' : missingMarkers.join(', ')}`,
        `${'row'.padEnd(44)} ${'root'.padEnd(8)} ${FENCE_USER}`,
        ...rows.map(
          (row) =>
            `${row.id.padEnd(44)} ${outcome(results.get(`${row.id}/root`)).padEnd(8)} ${outcome(results.get(`${row.id}/${FENCE_USER}`))}`,
        ),
        '',
      ].join('\n'),
    );
    const asRoot = unarmed.filter((r) => r.user === 'root');
    expect(asRoot.length, `too many rows unarmed as root:\n${lines.join('\n')}`).toBeLessThanOrEqual(
      MAX_UNARMED_AS_ROOT,
    );
  });
});
