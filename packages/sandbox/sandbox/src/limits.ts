/**
 * Per-world resource limits, set by the host before the world starts: a pids limit (a fork bomb
 * stops at it), a memory limit (the world's `/tmp` counts too, being RAM), each a cgroup the
 * world's first process joins, so everything in the world shares it. cgroup v1 controllers
 * (`pids`, `memory`, as on hosts with a hybrid hierarchy) are used where they are writable; on a
 * cgroup v2 host the world's own tree cgroup takes the limits where its parent delegates the
 * controllers (world.ts writes them there). Where neither is writable (an unprivileged user on a
 * host without delegation), the limits are not enforced and the world says so (`limitsEnforced`).
 *
 * The host reads the counters (`pids.events` max, the OOM kill count) before and after a run,
 * so a limit hit is told from host-side evidence, not from what a command printed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownCgroupPathOf } from '@dsh/subprocess-local';
import type { WorldLimits } from './types.js';

/** A world's default pids limit: room for builds and test runners, far below any host's pid_max. */
export const WORLD_PIDS_MAX = 1024;
/** A world's default memory limit, as a share of the machine's memory: one agent never exhausts it. */
export const WORLD_MEMORY_SHARE = 0.5;
/** Removing an emptied limit cgroup is tried this many times (its last process may still be exiting). */
const REMOVE_TRIES = 20;

function readCount(file: string, key: string): number {
  try {
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The limit cgroups of one world. */
export class WorldLimitGroups {
  private constructor(
    /** The cgroup.procs files the world's first process writes itself into. */
    readonly joinFiles: readonly string[],
    private readonly dirs: { pids: string | null; memory: string | null },
  ) {}

  /** Makes the cgroups for `limits` (those that can be made here); null when none can. */
  static make(limits: WorldLimits): WorldLimitGroups | null {
    const name = `dsh-${process.pid}-${randomBytes(4).toString('hex')}`;
    const pids =
      limits.pids === undefined ? null : make(ownCgroupPathOf('pids'), name, { 'pids.max': String(limits.pids) });
    const memory =
      limits.memoryBytes === undefined
        ? null
        : make(ownCgroupPathOf('memory'), name, {
            'memory.limit_in_bytes': String(limits.memoryBytes),
            'memory.memsw.limit_in_bytes': String(limits.memoryBytes),
          });
    const dirs = [pids, memory].filter((d): d is string => d !== null);
    if (dirs.length === 0) return null;
    return new WorldLimitGroups(
      dirs.map((d) => join(d, 'cgroup.procs')),
      { pids, memory },
    );
  }

  /** Which limits are enforced. */
  get enforced(): { pids: boolean; memory: boolean } {
    return { pids: this.dirs.pids !== null, memory: this.dirs.memory !== null };
  }

  /** How often a fork failed at the pids limit, and how many processes were killed out of memory. */
  counters(): { pids: number; oom: number } {
    return {
      pids: this.dirs.pids ? readCount(join(this.dirs.pids, 'pids.events'), 'max') : 0,
      oom: this.dirs.memory ? readCount(join(this.dirs.memory, 'memory.oom_control'), 'oom_kill') : 0,
    };
  }

  /** Removes the cgroups once the world's processes are gone (looked at again a few times). */
  dispose(tries = REMOVE_TRIES): void {
    const left = [this.dirs.pids, this.dirs.memory].filter((d): d is string => d !== null && existsSync(d));
    for (const dir of left) {
      try {
        rmdirSync(dir);
      } catch {
        // still populated: looked at again below
      }
    }
    if (tries > 0 && left.some((d) => existsSync(d))) setTimeout(() => this.dispose(tries - 1), 50).unref();
  }
}

/** Makes `<parent>/<name>` with `settings` written, or null where it cannot be. */
function make(parent: string | null, name: string, settings: Record<string, string>): string | null {
  if (!parent || !existsSync(join(parent, 'cgroup.procs'))) return null;
  const dir = join(parent, name);
  try {
    mkdirSync(dir);
    for (const [file, value] of Object.entries(settings)) {
      if (existsSync(join(dir, file))) writeFileSync(join(dir, file), value);
    }
    return dir;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return null;
  }
}
