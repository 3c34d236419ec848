/**
 * The host's nursery cgroup. While containment is in use, this process lives in a leaf of its
 * own, `<home>/dsh-<pid>-<random>/host`, beside the runtimes' tree cgroups. A child is born
 * there (fork is as fast as anywhere) and moved into its tree's cgroup as the spawn returns.
 * Whatever it forked before the move was born in the nursery too: every process that appeared
 * there after the child (a higher pid) and is not this host's own child is a stray of it and
 * follows it — setsid and double-fork escapees included, so none is missed. One move of a
 * single-threaded child per spawn; the host itself moves only when the nursery opens and closes.
 *
 * Process-wide (one cgroup per process), shared by every container, released with the last.
 * Limits: a host child started by a worker thread in the same microseconds is told apart by its
 * parent (this host) only; after a pid wrap-around, strays with lower pids are left to session
 * tracking.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { childGroups, ownCgroupDir, removeDeep } from './cgroup-fs.js';
import type { TreeCgroup } from './tree-cgroup.js';
import { WATCHDOG } from './watchdog.js';

/** The nursery's name inside the host's parent cgroup (the watchdog and sweeps leave it alone). */
export const NURSERY_NAME = 'host';
/** Sweeps for strays after one spawn: each moves what the last found; a stray forking meanwhile is found by the next. */
const ADOPT_ROUNDS = 4;

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? null : Number(fields[1]);
  } catch {
    return null;
  }
}

/** The process-wide nursery. */
export class Nursery {
  private static current: Nursery | null = null;
  private users = 0;
  private runtimes = 0;

  private constructor(
    /** The host's parent cgroup: the nursery and the runtimes' cgroups. */
    readonly base: string,
    private readonly home: string,
    private readonly homeFd: number,
    private readonly hostFd: number,
  ) {}

  /** The open nursery, if any. */
  static get active(): Nursery | null {
    return Nursery.current;
  }

  /** The nursery (made, and this process moved in, on first use); null where it cannot be. */
  static acquire(home: string): Nursery | null {
    let n = Nursery.current;
    if (!n) {
      n = Nursery.open(home);
      if (!n) return null;
      Nursery.current = n;
    }
    n.users += 1;
    return n;
  }

  private static open(home: string): Nursery | null {
    const base = join(home, `dsh-${process.pid}-${randomBytes(4).toString('hex')}`);
    const host = join(base, NURSERY_NAME);
    let homeFd = -1;
    let hostFd = -1;
    try {
      mkdirSync(host, { recursive: true });
      if (!existsSync(join(base, 'cgroup.kill'))) throw new Error('no cgroup.kill (kernel < 5.14)');
      homeFd = openSync(join(home, 'cgroup.procs'), 'w');
      hostFd = openSync(join(host, 'cgroup.procs'), 'w');
      writeSync(hostFd, String(process.pid));
    } catch {
      for (const fd of [homeFd, hostFd]) if (fd >= 0) closeSync(fd);
      removeDeep(base);
      return null;
    }
    WATCHDOG.watchCgroup(base); // its runtimes' cgroups end should the host die
    return new Nursery(base, home, homeFd, hostFd);
  }

  /** A new directory for one runtime's tree cgroups, or null. */
  runtimeDir(): string | null {
    const dir = join(this.base, `r${++this.runtimes}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch {
      return null;
    }
  }

  /**
   * Moves a just-spawned child and its strays into `group`. False when a live child could not
   * be moved (its tree then falls back to session tracking).
   */
  adopt(group: TreeCgroup, pid: number): boolean {
    let moved = true;
    try {
      group.enter(pid);
    } catch {
      moved = false;
    }
    if (!moved && parentOf(pid) !== null) return false;
    for (let round = 0; round < ADOPT_ROUNDS; round++) {
      const strays = this.strays(pid);
      if (strays.length === 0) break;
      for (const stray of strays) {
        try {
          group.enter(stray);
        } catch {
          // gone meanwhile
        }
      }
    }
    return true;
  }

  /** Moves this process into `group` (a strict spawn); back with {@link returnHome}. */
  enter(group: TreeCgroup): void {
    group.enter(process.pid);
  }

  /** Moves this process back into the nursery; false when it could not. */
  returnHome(): boolean {
    try {
      writeSync(this.hostFd, String(process.pid));
      return true;
    } catch {
      return false;
    }
  }

  /** Lets go of the nursery; the last user moves this process (and its own children) home and removes it. */
  release(): void {
    this.users -= 1;
    if (this.users > 0) return;
    Nursery.current = null;
    WATCHDOG.unwatchCgroup(this.base);
    for (const pid of [process.pid, ...this.members()]) {
      try {
        writeSync(this.homeFd, String(pid));
      } catch {
        // exited meanwhile
      }
    }
    closeSync(this.homeFd);
    closeSync(this.hostFd);
    for (const child of childGroups(this.base)) removeDeep(join(this.base, child));
    removeDeep(this.base);
  }

  /** Pids in the nursery other than this process. */
  private members(): number[] {
    let text: string;
    try {
      text = readFileSync(join(this.base, NURSERY_NAME, 'cgroup.procs'), 'latin1');
    } catch {
      return [];
    }
    const pids: number[] = [];
    for (const line of text.split('\n')) {
      const pid = Number(line);
      if (line !== '' && pid !== process.pid) pids.push(pid);
    }
    return pids;
  }

  /** Processes born in the nursery after `child` that are not this host's own children. */
  private strays(child: number): number[] {
    const watchdog = WATCHDOG.pid;
    return this.members().filter((pid) => pid > child && pid !== watchdog && parentOf(pid) !== process.pid);
  }

  /** Where this process lived before the nursery opened. */
  get homeDir(): string {
    return this.home;
  }
}

/** The cgroup this process lives in without containment: the open nursery's home, or its own. */
export function homeCgroup(): string | null {
  return Nursery.active?.homeDir ?? ownCgroupDir();
}
