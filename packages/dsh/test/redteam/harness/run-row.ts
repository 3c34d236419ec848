/**
 * Runs one row as one user: arm it on the host, make the attempt through the real dsh (answering
 * the live protocol), judge it from the host, check the model-visible marker softly, and undo
 * everything whatever happened.
 */
import type { Row } from '../rows/types.js';
import type { Bundle } from './bundle.js';
import type { Attempt } from './dsh.js';
import { Host } from './host.js';
import { type LiveLog, watchLive } from './live.js';
import { hasMarker, type MarkerName } from './markers.js';
import type { FenceUser } from './users.js';

/** What one row did as one user. */
export interface RowResult {
  id: string;
  user: string;
  kind: 'attack' | 'promise';
  /** Null when armed; else why not. */
  unarmed: string | null;
  /** An attack got through, or a promise broke (null when unarmed or on an error). */
  failed: boolean | null;
  evidence: string;
  /** The marker the row expects, and whether the rendered text carried it (null: none expected, or it got through). */
  marker: { name: MarkerName; seen: boolean } | null;
  /** The rendered tool text of the attempt (what the model read). */
  text: string;
  /** An error of the harness or the row itself (not a verdict). */
  error: string | null;
  ms: number;
}

/** Why an attempt did not run in a world (the runner failed, the command did not start), or null. */
function noWorld(attempt: Attempt): string | null {
  if (attempt.killed) return 'the suite killed it at its deadline';
  const data = attempt.data as { sandbox?: { runnerFailed?: boolean }; start_error?: unknown } | null;
  if (!data) return 'no structured result';
  if (data.sandbox?.runnerFailed) return 'the sandbox runner failed';
  if (data.start_error) return `start error ${JSON.stringify(data.start_error)}`;
  return null;
}

/** Runs `row` as `user`, with its directories under `parent`. */
export async function runRow(row: Row, user: FenceUser, bundle: Bundle, parent: string): Promise<RowResult> {
  const started = Date.now();
  const result: RowResult = {
    id: row.id,
    user: user.name,
    kind: row.kind ?? 'attack',
    unarmed: null,
    failed: null,
    evidence: '',
    marker: null,
    text: '',
    error: null,
    ms: 0,
  };
  let host: Host | null = null;
  try {
    host = new Host(user, bundle, parent, row.id, row.host);
    const h = host;
    try {
      result.unarmed = await row.arm(h);
    } catch (error) {
      result.unarmed = `arming failed: ${(error as Error).message}`;
    }
    if (result.unarmed !== null) return result;
    const log: LiveLog = { readySeen: false, heldSeen: false, errors: [] };
    const running = row.attempt ? row.attempt(h) : h.dshRun(row.command(h));
    const attempt = await watchLive(h.rt, () => h.hooks, running, log);
    result.text = attempt.text;
    if (log.errors.length > 0) throw new Error(`the host could not look: ${log.errors.join('; ')}\n${attempt.text}`);
    const lost = noWorld(attempt);
    if (lost && !row.startMayFail) throw new Error(`the attempt never ran in a world (${lost}):\n${attempt.text}`);
    const verdict = await row.judge(h, attempt);
    result.failed = verdict.failed;
    result.evidence = [verdict.evidence, ...h.notes].join('; ');
    if (row.marker && !verdict.failed) result.marker = { name: row.marker, seen: hasMarker(row.marker, attempt.text) };
  } catch (error) {
    result.error = (error as Error).stack ?? String(error);
  } finally {
    const failures = host ? await host.cleanup() : [];
    if (failures.length > 0)
      result.error = [result.error, `cleanup: ${failures.join('; ')}`].filter(Boolean).join('\n');
    result.ms = Date.now() - started;
  }
  return result;
}
