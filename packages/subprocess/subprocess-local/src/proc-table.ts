/**
 * Linux process-table snapshots from /proc, for whole-tree observation.
 * Elsewhere `procAvailable()` is false and callers fall back to process-group probes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** One live process as /proc showed it. */
export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Single-letter state (R, S, D, Z, …). */
  state: string;
}

let procChecked: boolean | undefined;

/** True where /proc exposes per-process stat files (Linux). */
export function procAvailable(): boolean {
  if (procChecked === undefined) procChecked = existsSync(`/proc/${process.pid}/stat`);
  return procChecked;
}

/** Parses the text of `/proc/<pid>/stat`; null when malformed. */
export function parseStat(text: string): ProcEntry | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number.parseInt(text, 10);
  const fields = text.slice(close + 2).split(' ');
  const [state, ppid, pgid, sid] = [fields[0], Number(fields[1]), Number(fields[2]), Number(fields[3])];
  if (
    !state ||
    !Number.isInteger(pid) ||
    !Number.isInteger(ppid) ||
    !Number.isInteger(pgid) ||
    !Number.isInteger(sid)
  ) {
    return null;
  }
  return { pid, ppid, pgid, sid, state };
}

/** Every process visible now, zombies and dead entries excluded (they are gone for our purposes). */
export function snapshotProcs(): ProcEntry[] {
  const out: ProcEntry[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited between readdir and read
    }
    const entry = parseStat(text);
    if (entry && entry.state !== 'Z' && entry.state !== 'X') out.push(entry);
  }
  return out;
}

/**
 * Live members of the tree rooted at `root` (a session and group leader we started): every
 * process in its session or group, plus descendants of those by parent link (which catches
 * children that called setsid while their parent is still in the tree).
 */
export function treeMembers(procs: readonly ProcEntry[], root: number): ProcEntry[] {
  const inTree = new Set<number>();
  for (const p of procs) {
    if (p.pid === root || p.sid === root || p.pgid === root) inTree.add(p.pid);
  }
  let grew = inTree.size > 0;
  while (grew) {
    grew = false;
    for (const p of procs) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => inTree.has(p.pid));
}
