/**
 * What the host sees in its own /proc: processes by the tag a probe carries in its argv, their
 * namespaces, tracers, open files and limits, and a world's pid 1 and 2 as host pids. Every
 * row decides from these (or from files and servers on the host), never from what a confined
 * command prints about itself.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Reads a /proc file, or null when the process is gone or the file is unreadable. */
function read(path: string): string | null {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return null;
  }
}

/** Host pids of live processes. */
export function pids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

/** The argv of `pid`, or null when it is gone. */
export function argvOf(pid: number): string[] | null {
  const raw = read(`/proc/${pid}/cmdline`);
  return raw === null ? null : raw.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
}

/**
 * Live processes (not zombies) whose argv[0] is `tag` (a probe's `exec -a TAG …`): a shell that
 * only has the tag somewhere in its command line does not count.
 */
export function tagged(tag: string): number[] {
  return pids().filter((pid) => argvOf(pid)?.[0] === tag && state(pid) !== 'Z');
}

/** The fields of /proc/PID/status, or null when it is gone. */
export function status(pid: number): Record<string, string> | null {
  const raw = read(`/proc/${pid}/status`);
  if (raw === null) return null;
  const fields: Record<string, string> = {};
  for (const line of raw.split('\n')) {
    const at = line.indexOf(':');
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  return fields;
}

/** The one-letter state of `pid` (R, S, T, Z…), or null when it is gone. */
export function state(pid: number): string | null {
  return status(pid)?.State?.charAt(0) ?? null;
}

/** True while `pid` lives (a zombie counts as gone). */
export function alive(pid: number): boolean {
  const s = state(pid);
  return s !== null && s !== 'Z' && s !== 'X';
}

/** The parent of `pid`. */
export function parentOf(pid: number): number | null {
  const p = status(pid)?.PPid;
  return p === undefined ? null : Number(p);
}

/** The tracer of `pid` (0 when none), or null when it is gone. */
export function tracerOf(pid: number): number | null {
  const t = status(pid)?.TracerPid;
  return t === undefined ? null : Number(t);
}

/** The namespace link of `pid` (`user:[4026531837]`), or null. */
export function nsOf(pid: number, kind: 'user' | 'mnt' | 'net' | 'pid' | 'uts' | 'ipc' | 'cgroup'): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/${kind}`);
  } catch {
    return null;
  }
}

/** What the open file descriptors of `pid` point at (`anon_inode:[perf_event]`, `socket:[123]`, paths). */
export function fdLinks(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** The host pid of process `n` (1: bwrap's init, 2: the runtime server) in the pid namespace of `member`. */
export function worldPid(member: number, n: number): number | null {
  const ns = nsOf(member, 'pid');
  if (ns === null) return null;
  for (const pid of pids()) {
    if (nsOf(pid, 'pid') !== ns) continue;
    const inner = status(pid)?.NSpid?.split(/\s+/).at(-1);
    if (inner === String(n)) return pid;
  }
  return null;
}

/** Host pids of every descendant of `root` (not `root` itself). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const parent = parentOf(pid);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number): void => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** True when a mount whose source is `source` is in the mount namespace of `pid`. */
export function mountinfoHas(pid: number, source: string): boolean {
  const info = read(`/proc/${pid}/mountinfo`);
  return info?.split('\n').some((line) => line.split(' - ')[1]?.split(' ')[1] === source) ?? false;
}

/** The raw /proc/PID/FILE (environ, limits, mountinfo…), or null. */
export function procFile(pid: number, file: string): string | null {
  return read(`/proc/${pid}/${file}`);
}

/** Sends `signal` to each pid, ignoring those already gone. */
export function killAll(list: number[], signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of list) {
    if (pid <= 1 || pid === process.pid) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}
