/**
 * Limits of a world that no cgroup of the host holds (an unprivileged dsh on a host that
 * delegates none): the kernel's per-user-namespace process count and a per-process data bound
 * hold them, and the host watches the world's processes to tell a hit and to bound the sum.
 *
 * - pids: `RLIMIT_NPROC`, set inside the world's own user namespace (by `prlimit` as the server
 *   starts). The kernel counts a user's tasks per user namespace, so the bound is the world's
 *   alone: the person's other processes and other worlds do not count against it.
 * - memory: `RLIMIT_DATA` keeps any one process's private writable memory under the limit; the
 *   host sums the world's memory (resident sizes and page tables, every 100 ms while something
 *   runs, every 20 ms past half the limit, every second when idle; then each process's
 *   proportional share) and, just below the limit (or where growth at the rate seen would take
 *   it past the limit before a late next look), kills the largest commands until it is under.
 *   Shared mappings (which `RLIMIT_DATA` does not count) are held by the watch.
 *
 * Memory that no process of the world maps (a file in its /tmp, which has a size of its own; a
 * written memfd no one maps) is not counted: a cgroup is the whole bound, this one is not.
 */
import { accessSync, constants, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { MemoryGrowth, memoryKillBound } from './memory-bound.js';
import type { WorldLimits } from './types.js';

/** Where util-linux installs prlimit, which sets the rlimits as the world's server starts. */
export const PRLIMIT_PATH = '/usr/bin/prlimit';
/** How often the host looks at such a world while something runs in it (a hit is told within this). */
export const LIMIT_WATCH_INTERVAL_MS = 100;
/** How often it looks once the world holds more than {@link CLOSE_WATCH_SHARE} of its memory limit (memory grows fast). */
export const LIMIT_WATCH_CLOSE_INTERVAL_MS = 20;
/** How often it looks at a world with nothing running (a process left behind still counts). */
export const LIMIT_WATCH_IDLE_INTERVAL_MS = 1_000;
/** The share of the memory limit past which the world is watched closely. */
const CLOSE_WATCH_SHARE = 0.5;
/** After a proportional-share pass found the world within its limit, the next waits at most this long… */
const SHARES_QUIET_MS = 1_000;
/**
 * A world holding this share of its pids limit is at it: forks past it are refused, and a look
 * every {@link LIMIT_WATCH_INTERVAL_MS} catches a fork bomb a little below its peak.
 */
export const PIDS_AT_LIMIT_SHARE = 0.95;
/**
 * What a process holds besides its data (its code, libraries and stack) at most, kept free under
 * the memory limit by its data bound, so one process alone never passes the limit (an eighth of
 * the limit where that is less).
 */
export const RLIMIT_DATA_HEADROOM_BYTES = 64 * 2 ** 20;
/** How deep the host looks under the channel's process for the world's first process (shim, pasta, bwrap, its init). */
const FIND_DEPTH = 5;

/**
 * The rlimits that bound `limits` inside a world whose user namespace is its own; empty where
 * prlimit is missing here (`checkHere`: false for a world on another machine).
 */
export function rlimitArgv(limits: WorldLimits, checkHere = true): string[] {
  if (limits.pids === undefined && limits.memoryBytes === undefined) return [];
  try {
    if (checkHere) accessSync(PRLIMIT_PATH, constants.X_OK);
  } catch {
    return [];
  }
  const set = (name: string, n: number | undefined) => (n === undefined ? [] : [`--${name}=${n}:${n}`]);
  const m = limits.memoryBytes;
  const data = m === undefined ? undefined : Math.floor(m - Math.min(RLIMIT_DATA_HEADROOM_BYTES, m / 8));
  return [PRLIMIT_PATH, ...set('nproc', limits.pids), ...set('data', data), '--'];
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function nsOf(pid: number | string): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return null;
  }
}

/** One process of the world as the host sees it. */
interface Seen {
  pid: number;
  /** Its pid inside the world. */
  inner: number;
  tasks: number;
  /** Its resident size (cheap to read; at least its proportional share). */
  rss: number;
  /** Its page tables. */
  pte: number;
}

const kb = (status: string, key: string): number =>
  Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;

function look(pid: number): Seen | null {
  let status = read(`/proc/${pid}/status`);
  if (status === null) return null;
  const inner = Number(/^NSpid:.*\s(\d+)\s*$/m.exec(status)?.[1] ?? Number.NaN);
  const tasks = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  if (/^State:\s+Z/m.test(status)) {
    if (tasks <= 1) return null; // gone: nothing left to count or kill
    // A leader that ended while its threads go on shows no memory itself: one of them does.
    const live = readdirSync(`/proc/${pid}/task`).find((t) => t !== String(pid));
    status = (live && read(`/proc/${pid}/task/${live}/status`)) || status;
  }
  // Its page tables too: a mapping touched sparsely costs them, not resident pages.
  return { pid, inner, tasks, rss: kb(status, 'VmRSS'), pte: kb(status, 'VmPTE') };
}

/**
 * A process's proportional share of memory (pages processes share, a fork's copy-on-write or a
 * library, are split); its whole resident size where that cannot be read (one that made itself
 * undumpable).
 */
function share(s: Seen): number {
  const pss = /^Pss:\s+(\d+) kB/m.exec(read(`/proc/${s.pid}/smaps_rollup`) ?? '')?.[1];
  return pss === undefined ? s.rss + s.pte : Number(pss) * 1024 + s.pte;
}

/** The host's watch over one world's limits. */
export class WorldLimitWatch {
  private ns: string | null = null;
  private pidsHits = 0;
  private kills = 0;
  private timer: NodeJS.Timeout | null = null;

  /** No proportional-share pass before this time (the last one found the world within its limit)… */
  private sharesQuietUntil = 0;
  /**
   * …unless what they found plus every rise of the resident sizes since passes the bound (a
   * process's share grows no faster than its resident size: pages it maps count whole there).
   */
  private sharesSince = { shares: 0, rise: 0 };
  /** The last look's resident sum, for their rises. */
  private lastRss = 0;
  private readonly growth = new MemoryGrowth();

  /**
   * @param channelPid the host pid of the process that starts the world (its shim)
   * @param busy whether anything runs in the world now (the watch is idle otherwise)
   * @param machineryPidMax pids inside the world up to this one are its machinery, never killed
   */
  constructor(
    private readonly channelPid: number,
    private readonly limits: WorldLimits,
    private readonly busy: () => boolean,
    private readonly machineryPidMax: number,
    /** True once the world's channel is gone: its pid namespace (whose id may be reused) is no longer watched. */
    private readonly gone: () => boolean = () => false,
  ) {
    this.schedule(LIMIT_WATCH_INTERVAL_MS);
  }

  /** How often the world was seen at its pids limit, and how many of its processes were killed past its memory. */
  counters(): { pids: number; oom: number } {
    this.lookSafely(); // a run that ends between two looks is still seen at its end
    return { pids: this.pidsHits, oom: this.kills };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      const next = this.lookSafely();
      if (this.timer) this.schedule(next); // not once disposed (by the look itself too, when the world is gone)
    }, ms);
    this.timer.unref();
  }

  /** {@link look}, never throwing (a /proc read that fails is tried again at the next look). */
  private lookSafely(): number {
    if (this.gone()) {
      this.dispose();
      return LIMIT_WATCH_IDLE_INTERVAL_MS;
    }
    try {
      return this.look();
    } catch {
      return LIMIT_WATCH_INTERVAL_MS;
    }
  }

  /** The world's pid namespace: the first process under the channel whose namespace is not the host's. */
  private worldNs(): string | null {
    if (this.ns) return this.ns;
    const own = nsOf('self');
    let level = [this.channelPid];
    for (let depth = 0; depth < FIND_DEPTH && level.length > 0; depth++) {
      const next: number[] = [];
      for (const pid of level) {
        const ns = nsOf(pid);
        if (ns && ns !== own) {
          this.ns = ns;
          return ns;
        }
        const children = read(`/proc/${pid}/task/${pid}/children`) ?? '';
        next.push(...children.split(' ').filter(Boolean).map(Number));
      }
      level = next;
    }
    return null;
  }

  /** Looks at the world once (counting a pids hit, killing past the memory limit); when to look next. */
  private look(): number {
    // Idle worlds are looked at too, less often: a process left running (setsid) still counts.
    const every = this.busy() ? LIMIT_WATCH_INTERVAL_MS : LIMIT_WATCH_IDLE_INTERVAL_MS;
    const ns = this.worldNs();
    if (!ns) return every;
    const seen: Seen[] = [];
    for (const name of readdirSync('/proc')) {
      if (name.charCodeAt(0) > 57 || nsOf(name) !== ns) continue;
      const one = look(Number(name));
      if (one) seen.push(one);
    }
    const { pids, memoryBytes } = this.limits;
    const tasks = seen.reduce((n, s) => n + s.tasks, 0);
    if (pids !== undefined && tasks >= pids * PIDS_AT_LIMIT_SHARE) this.pidsHits++;
    if (memoryBytes === undefined) return every;
    const rss = seen.reduce((n, s) => n + s.rss + s.pte, 0);
    const bound = memoryKillBound(memoryBytes, this.growth.see(rss, performance.now()));
    this.sharesSince.rise += Math.max(0, rss - this.lastRss);
    this.lastRss = rss;
    // Resident sizes count shared pages once per process; the proportional shares decide, at most
    // once a second while they keep finding the world within its limit and it cannot have grown
    // past it since (they cost a walk of each process's page tables).
    const quiet = Date.now() < this.sharesQuietUntil && this.sharesSince.shares + this.sharesSince.rise <= bound;
    if (rss > bound && !quiet) {
      const shares = this.killPast(seen, bound, ns);
      if (shares !== null) {
        this.sharesQuietUntil = Date.now() + SHARES_QUIET_MS;
        this.sharesSince = { shares, rise: 0 };
      }
    }
    return rss > memoryBytes * CLOSE_WATCH_SHARE ? LIMIT_WATCH_CLOSE_INTERVAL_MS : every;
  }

  /**
   * Kills the world's largest commands until its memory (proportional shares) is within `bound`;
   * the shares' sum when it was within it already (null when it was past it).
   */
  private killPast(seen: readonly Seen[], bound: number, ns: string): number | null {
    const sized = seen.map((s) => ({ s, bytes: share(s) }));
    let bytes = sized.reduce((n, x) => n + x.bytes, 0);
    if (bytes <= bound) return bytes;
    const commands = sized.filter((x) => x.s.inner > this.machineryPidMax).sort((a, b) => b.bytes - a.bytes);
    for (const { s, bytes: own } of commands) {
      if (bytes <= bound) break;
      if (s.pid <= 1 || nsOf(s.pid) !== ns) continue; // gone, or its pid taken by another process since
      try {
        process.kill(s.pid, 'SIGKILL');
        this.kills++;
        bytes -= own;
      } catch {
        // gone already
      }
    }
    return null;
  }
}
