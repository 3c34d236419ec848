/**
 * Linux process-table snapshots from /proc, for whole-tree observation.
 * Elsewhere `procAvailable()` is false and callers fall back to process-group probes.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync } from 'node:fs';

/** A stat line is well under 1 KiB; 4 KiB leaves room for the longest command name (escaped). */
const STAT_BUFFER_BYTES = 4096;
const statBuffer = Buffer.alloc(STAT_BUFFER_BYTES);

/**
 * Reads `/proc/<name>/stat` into a shared buffer: no fstat and no allocation per file, which
 * halves the cost of a whole-table scan. Throws like `readFileSync` would.
 */
function readStat(name: string | number): string {
  const fd = openSync(`/proc/${name}/stat`, 'r');
  try {
    const n = readSync(fd, statBuffer, 0, STAT_BUFFER_BYTES, 0);
    return statBuffer.toString('latin1', 0, n);
  } finally {
    closeSync(fd);
  }
}

/** One live process as /proc showed it. */
export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Single-letter state (R, S, D, Z, …). */
  state: string;
  /** Start time in clock ticks since boot (field 22): tells a reused pid from the original. */
  start: number;
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
  const state = fields[0];
  const [ppid, pgid, sid, start] = [Number(fields[1]), Number(fields[2]), Number(fields[3]), Number(fields[19] ?? 0)];
  if (!state || ![pid, ppid, pgid, sid].every(Number.isInteger) || !Number.isFinite(start)) return null;
  return { pid, ppid, pgid, sid, state, start };
}

/** The stat entry of one process, or null when it does not exist (or is a zombie). */
export function readProc(pid: number): ProcEntry | null {
  try {
    const entry = parseStat(readStat(pid));
    return entry && entry.state !== 'Z' && entry.state !== 'X' ? entry : null;
  } catch {
    return null;
  }
}

/** Errors that mean "this process is gone", as opposed to "could not look". */
function isGoneError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ESRCH';
}

/**
 * Every live process now, zombies excluded (they are gone for our purposes). Null when the
 * table could not be read completely (e.g. EMFILE): callers must then treat membership as
 * unknown, never as empty.
 */
export function snapshotProcs(): ProcEntry[] | null {
  const out: ProcEntry[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let text: string;
    try {
      text = readStat(name);
    } catch (error) {
      if (isGoneError(error)) continue; // exited between readdir and read
      return null;
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
 *
 * `rootStart` guards against pid reuse: a process group or session id pins its number, so if a
 * process now holds `root` with another start time, the number was free and our tree is gone.
 */
export function treeMembers(procs: readonly ProcEntry[], root: number, rootStart?: number): ProcEntry[] {
  if (rootStart !== undefined && procs.some((p) => p.pid === root && p.start !== rootStart)) return [];
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
