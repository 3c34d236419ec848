/**
 * Foreground facts of a terminal session from /proc (Linux): the foreground process group
 * (`tpgid`, field 8 of /proc/<shell>/stat) and whether it is blocked waiting for terminal input
 * (from /proc/<pid>/task/<tid>/syscall of every thread: a read on the tty, or a poll, select or
 * epoll whose watched set includes the tty — poll and select sets are read from /proc/<pid>/mem,
 * epoll sets from fdinfo). What cannot be read is null, never a guess.
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import type { ForegroundFacts } from '@dsh/subprocess';
import { procAvailable, snapshotProcs } from './proc-table.js';
import { waitSyscalls } from './syscalls.js';

/** Pid, process group and terminal foreground group of the shell, from its stat line. */
function shellStat(pid: number): { pgid: number; sid: number; tpgid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const state = f[0];
    if (!state || state === 'Z' || state === 'X') return null;
    return { pgid: Number(f[2]), sid: Number(f[3]), tpgid: Number(f[5]) };
  } catch {
    return null;
  }
}

/** The terminal a process has as its stdin, e.g. `/dev/pts/3`, or null. */
export function ttyOf(pid: number): string | null {
  try {
    const target = readlinkSync(`/proc/${pid}/fd/0`);
    return target.startsWith('/dev/pts/') || target.startsWith('/dev/tty') ? target : null;
  } catch {
    return null;
  }
}

/** Whether fd `fd` of `pid` is the session's terminal (its device path, or the /dev/tty alias). */
function fdIsTty(pid: number, fd: number, tty: string): boolean {
  try {
    const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    return target === tty || target === '/dev/tty';
  } catch {
    return false;
  }
}

/** Whether an epoll instance watches an fd that is the tty (fdinfo lists its targets as `tfd:`). */
function epollWatchesTty(pid: number, epfd: number, tty: string): boolean {
  try {
    const info = readFileSync(`/proc/${pid}/fdinfo/${epfd}`, 'utf8');
    for (const m of info.matchAll(/^tfd:\s+(\d+)/gm)) if (fdIsTty(pid, Number(m[1]), tty)) return true;
  } catch {
    // unreadable: not evidence
  }
  return false;
}

/** Most fds looked at in one poll or select set: beyond this the answer is "unknown". */
const MAX_WATCHED_FDS = 1024;
/** POLLIN: the event a reader of the terminal asks for. */
const POLLIN = 0x1;

/** Bytes of the traced process's memory at `address`, or null when they cannot be read. */
function readMemory(pid: number, address: number, length: number): Buffer | null {
  if (!Number.isSafeInteger(address) || address <= 0 || length <= 0) return null;
  let fd = -1;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
    const buf = Buffer.alloc(length);
    return readSync(fd, buf, 0, length, address) === length ? buf : null;
  } catch {
    return null;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** Whether a poll set (pollfd array) asks to read the tty; null when it cannot be read. */
function pollWatchesTty(pid: number, fds: number, nfds: number, tty: string): boolean | null {
  if (nfds === 0) return false;
  if (nfds > MAX_WATCHED_FDS) return null;
  const buf = readMemory(pid, fds, nfds * 8);
  if (!buf) return null;
  for (let i = 0; i < nfds; i++) {
    const fd = buf.readInt32LE(i * 8);
    const events = buf.readInt16LE(i * 8 + 4);
    if (fd >= 0 && events & POLLIN && fdIsTty(pid, fd, tty)) return true;
  }
  return false;
}

/** Whether a select read set has the tty; null when it cannot be read. */
function selectWatchesTty(pid: number, nfds: number, readfds: number, tty: string): boolean | null {
  if (readfds === 0 || nfds === 0) return false;
  if (nfds > MAX_WATCHED_FDS) return null;
  const buf = readMemory(pid, readfds, Math.ceil(nfds / 64) * 8);
  if (!buf) return null;
  for (let fd = 0; fd < nfds; fd++) {
    if (buf[fd >> 3] !== undefined && ((buf[fd >> 3] as number) >> (fd & 7)) & 1 && fdIsTty(pid, fd, tty)) return true;
  }
  return false;
}

/** True/false when the process's threads could be read; null when none could. */
function waitingOnTty(pid: number, tty: string): boolean | null {
  const table = waitSyscalls();
  if (!table) return null;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let readAny = false;
  let unknown = false;
  for (const tid of tids) {
    let fields: string[];
    try {
      fields = readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'latin1').trim().split(' ');
    } catch {
      continue;
    }
    readAny = true;
    const nr = Number(fields[0]);
    const [arg0, arg1] = [Number.parseInt(fields[1] ?? '', 16), Number.parseInt(fields[2] ?? '', 16)];
    if (!Number.isInteger(nr) || nr < 0) continue; // "running" or not in a syscall
    let waiting: boolean | null = false;
    if (table.read.includes(nr)) waiting = fdIsTty(pid, arg0, tty);
    else if (table.epoll.includes(nr)) waiting = epollWatchesTty(pid, arg0, tty);
    else if (table.poll.includes(nr)) waiting = pollWatchesTty(pid, arg0, arg1, tty);
    else if (table.select.includes(nr)) waiting = selectWatchesTty(pid, arg0, arg1, tty);
    if (waiting === true) return true;
    if (waiting === null) unknown = true;
  }
  return readAny && !unknown ? false : null;
}

/** One argument as a shell would need it typed (quoted when it holds a blank or a special character). */
const quoted = (arg: string): string => (/^[\w./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`);

/** The foreground command as it would be typed: its arguments, quoted where needed. */
function commandOf(pid: number): string | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
    if (argv.length > 0) return argv.map(quoted).join(' ');
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * Facts about the foreground of the terminal whose session leader is `shellPid` and whose
 * device is `tty` (null when unknown: stdinWait is then null too).
 */
export function inspectForeground(shellPid: number, tty: string | null): ForegroundFacts {
  const shell = procAvailable() ? shellStat(shellPid) : null;
  if (!shell) return { shellPgid: shellPid, foregroundPgid: null, stdinWait: null, command: null };
  const foregroundPgid = shell.tpgid > 0 ? shell.tpgid : null;
  if (foregroundPgid === null || tty === null) {
    return { shellPgid: shell.pgid, foregroundPgid, stdinWait: null, command: null };
  }
  let members: number[];
  if (foregroundPgid === shell.pgid) members = [shellPid];
  else {
    const procs = snapshotProcs();
    if (!procs) return { shellPgid: shell.pgid, foregroundPgid, stdinWait: null, command: commandOf(foregroundPgid) };
    members = procs.filter((p) => p.pgid === foregroundPgid && p.sid === shell.sid).map((p) => p.pid);
  }
  let stdinWait: boolean | null = members.length === 0 ? null : false;
  for (const pid of members) {
    const waiting = waitingOnTty(pid, tty);
    if (waiting === true) {
      stdinWait = true;
      break;
    }
    if (waiting === null && stdinWait === false) stdinWait = null;
  }
  return { shellPgid: shell.pgid, foregroundPgid, stdinWait, command: commandOf(members[0] ?? foregroundPgid) };
}
