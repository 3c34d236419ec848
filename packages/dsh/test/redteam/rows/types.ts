/**
 * A red-team row: one attempt a confined agent makes, armed on the host first and judged from
 * host-side evidence only. The rows table is the suite, and docs/threat-model.md lists it.
 */
import type { Attempt } from '../harness/dsh.js';
import type { Host, HostOptions } from '../harness/host.js';
import type { MarkerName } from '../harness/markers.js';

/** The classes of attempts (the threat model's rows group by them). */
export const KLASSES = {
  kernel: "The kernel's own knobs",
  syscall: 'Syscalls the fence denies',
  agents: "Other agents' and the person's data and services",
  machinery: "The world's own machinery",
  cgroup: 'Process tracking (cgroups)',
  planted: "Files the person's tools run later",
  escalation: 'Approved escalations',
  credentials: 'Credentials',
  resources: 'Resources',
  modes: 'Modes',
} as const;

export type Klass = keyof typeof KLASSES;

/** What the host saw. */
export interface Verdict {
  /** An attack: it got through. A promise (kind 'promise'): it was broken. */
  failed: boolean;
  /** The host-side evidence, in one line. */
  evidence: string;
}

/** One attempt. */
export interface Row {
  /** Stable kebab-case name (the threat model and the test names use it). */
  id: string;
  klass: Klass;
  /** What the agent tries, in a few words. */
  title: string;
  /** What decides it on the host, in a few words (the threat model shows it). */
  proof: string;
  /** 'attack' (default): the fence must stop it. 'promise': the fence must let it work. */
  kind?: 'attack' | 'promise';
  /** Rows sharing a lock never run at the same time ('*': alone). */
  lock?: string;
  /** It changes host state and restores it in a finally: it is armed only where a restore works. */
  restores?: boolean;
  host?: HostOptions;
  /**
   * The attempt may end without a world (the row ends its world, or the promise is that it
   * starts). Otherwise an attempt that never ran in a world is an error of the row, never a pass.
   */
  startMayFail?: boolean;
  /**
   * A known gap (docs/threat-model.md, "Known gaps"): for that user the attempt still gets
   * through, and the suite checks that it does — a gap that closes fails the row until its mark
   * is removed, so the list stays true. The text says why, in a few words.
   */
  gap?: { root?: string; user?: string };
  /** The marker the model should read when the fence stops it (checked softly, see markers.ts). */
  marker?: MarkerName;
  /**
   * Shows on the host, without any sandbox, that the target answers (or sets up the bait):
   * null when armed, else why it cannot be armed on this machine for this user.
   */
  arm(host: Host): Promise<string | null>;
  /** The bash the confined agent runs (the default attempt: one `dsh run` of it). */
  command(host: Host): string;
  /** Runs the attempt itself (several calls, a session, a terminal…) instead of one `dsh run`. */
  attempt?(host: Host): Promise<Attempt>;
  /** Decides from host-side evidence (and at most the rendered text's secret content). */
  judge(host: Host, attempt: Attempt): Promise<Verdict> | Verdict;
}

/** Checks that the table's ids are unique and kebab-case. */
export function checkTable(rows: readonly Row[]): void {
  const seen = new Set<string>();
  for (const row of rows) {
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(row.id)) throw new Error(`row id ${row.id} is not kebab-case`);
    if (seen.has(row.id)) throw new Error(`row id ${row.id} is used twice`);
    seen.add(row.id);
  }
}
