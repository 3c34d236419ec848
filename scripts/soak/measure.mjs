// What a soak compares before and after: descriptors, descendant processes and zombies,
// populated cgroups under this host's parent cgroup, bytes on disk under the output roots, RSS.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], ppid: Number(f[1]) };
  } catch {
    return null;
  }
}

/** Live descendants of this process, and zombies among them. */
export function descendants() {
  const parent = new Map();
  const state = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(name);
    if (s) {
      parent.set(Number(name), s.ppid);
      state.set(Number(name), s.state);
    }
  }
  let live = 0;
  let zombies = 0;
  for (const pid of parent.keys()) {
    let p = parent.get(pid);
    while (p !== undefined && p > 1 && p !== process.pid) p = parent.get(p);
    if (p !== process.pid) continue;
    if (state.get(pid) === 'Z') zombies++;
    else live++;
  }
  return { live, zombies };
}

function cgroupRoot() {
  const rel = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::'))
    ?.slice(3);
  const line = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => l.includes(' - cgroup2 '));
  if (!rel || !line) return null;
  // The host lives in <base>/host: its parent is this host's parent cgroup.
  return rel.endsWith('/host') ? join(line.split(' ')[4], rel.slice(0, -'/host'.length)) : null;
}

/** Cgroups under this host's parent cgroup that hold processes (the host's own nursery aside), and all of them. */
export function cgroups() {
  const base = cgroupRoot();
  if (!base) return { populated: 0, total: 0 };
  let populated = 0;
  let total = 0;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const sub = join(dir, e.name);
      if (dir === base && e.name === 'host') continue;
      total++;
      if (readFileSync(join(sub, 'cgroup.procs'), 'utf8').trim() !== '') populated++;
      walk(sub);
    }
  };
  walk(base);
  return { populated, total };
}

/** Bytes and files under `dirs` (recursively). */
export function onDisk(dirs) {
  let bytes = 0;
  let files = 0;
  const sizes = new Map();
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        files++;
        try {
          const size = statSync(p).size;
          bytes += size;
          sizes.set(p, size);
        } catch {
          // removed meanwhile
        }
      }
    }
  };
  for (const d of dirs) walk(d);
  return { bytes, files, sizes };
}

/** Everything at once, after a garbage collection. */
export function measure(dirs) {
  gc();
  gc();
  return {
    fds: readdirSync('/proc/self/fd').length,
    ...descendants(),
    cgroups: cgroups(),
    disk: onDisk(dirs),
    rss: process.memoryUsage().rss,
    heap: process.memoryUsage().heapUsed,
    external: process.memoryUsage().external + process.memoryUsage().arrayBuffers,
  };
}
