/**
 * Small cgroup v2 file-system helpers: where we live, whether a subtree is populated, and
 * depth-first removal. Read failures other than "does not exist" are reported as unknown (null).
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

/** A cgroup directory reached through a descriptor instead of its path (see {@link useCgroupDescriptor}). */
let alias: { real: string; via: string } | null = null;

/**
 * Makes the cgroup directory open on descriptor `fd` (inherited from whoever started this
 * process) the way this process reaches its own cgroup tree: its path is read-only here (a
 * sandbox world binds it so), and `/proc/self/fd/<fd>` reaches the writable directory behind it.
 * It must be the cgroup this process lives in when called. The inherited descriptor is replaced
 * by one closed on exec, so no child inherits it. Returns the path used from now on, or null when
 * `fd` is not an open directory or this process has no cgroup v2 path.
 */
export function useCgroupDescriptor(fd: number): string | null {
  const real = ownCgroupPath();
  let own: number;
  try {
    if (real === null || !readlinkSync(`/proc/self/fd/${fd}`)) return null;
    own = openSync(`/proc/self/fd/${fd}`, 'r'); // Node opens with O_CLOEXEC
  } catch {
    return null;
  }
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
  alias = { real, via: `/proc/self/fd/${own}` };
  return alias.via;
}

/** `dir` as this process reaches it (through the descriptor alias when one is in use). */
function aliased(dir: string): string {
  if (!alias) return dir;
  if (dir === alias.real) return alias.via;
  return dir.startsWith(`${alias.real}/`) ? alias.via + dir.slice(alias.real.length) : dir;
}

/** Finds the cgroup v2 directory this process lives in, or null. */
export function ownCgroupDir(): string | null {
  const dir = ownCgroupPath();
  return dir === null ? null : aliased(dir);
}

function ownCgroupPath(): string | null {
  return ownCgroupPathOf(null);
}

/**
 * Where this process lives in a cgroup hierarchy, as a directory path: the v2 one (`controller`
 * null), or the v1 hierarchy that carries `controller` (`pids`, `memory`). Null when there is
 * none, or it is not mounted where this process can see its place.
 */
export function ownCgroupPathOf(controller: string | null): string | null {
  let mountinfo: string;
  let membership: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    membership = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return null;
  }
  const line = membership
    .split('\n')
    .find((l) => (controller === null ? l.startsWith('0::') : l.split(':')[1]?.split(',').includes(controller)));
  if (!line) return null;
  const path = line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
  for (const entry of mountinfo.split('\n')) {
    const [left, right] = entry.split(' - ');
    if (!left || !right) continue;
    const [fstype, , options = ''] = right.split(' ');
    if (controller === null ? fstype !== 'cgroup2' : fstype !== 'cgroup' || !options.split(',').includes(controller)) {
      continue;
    }
    const fields = left.split(' ');
    const root = fields[3] ?? '/';
    const mount = fields[4];
    if (!mount) continue;
    if (root === '/') return join(mount, path);
    if (path === root || path.startsWith(`${root}/`)) return join(mount, path.slice(root.length));
  }
  return null;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/** Names of the child cgroups of `dir` (empty when it has none or is gone). */
export function childGroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * Whether any process lives in `dir` or below (`populated` of cgroup.events). False when the
 * cgroup is gone; null when it could not be read.
 */
export function populated(dir: string): boolean | null {
  try {
    const events = readFileSync(join(dir, 'cgroup.events'), 'utf8');
    const m = /^populated (\d)$/m.exec(events);
    return m ? m[1] === '1' : null;
  } catch (error) {
    return isMissing(error) ? false : null;
  }
}

/** Pids in `dir` and every cgroup below it; null when a listing could not be read. */
export function pidsDeep(dir: string): number[] | null {
  let text: string;
  try {
    text = readFileSync(join(dir, 'cgroup.procs'), 'utf8');
  } catch (error) {
    return isMissing(error) ? [] : null;
  }
  const pids = text
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
  for (const child of childGroups(dir)) {
    const below = pidsDeep(join(dir, child));
    if (below === null) return null;
    pids.push(...below);
  }
  return pids;
}

/** Removes `dir` and its child cgroups, deepest first; populated ones stay (EBUSY). True when `dir` is gone. */
export function removeDeep(dir: string): boolean {
  for (const child of childGroups(dir)) removeDeep(join(dir, child));
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return isMissing(error);
  }
}
