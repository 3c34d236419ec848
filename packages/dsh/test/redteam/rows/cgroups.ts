/**
 * Out of its call's process tracking: a command finds its cgroup (/proc/self/cgroup and the
 * cgroup2 mount in /proc/self/mountinfo) and moves a child into the world's cgroup (the highest
 * writable one above it) or that one's parent, or makes a cgroup of its own. An escapee that
 * outlives its call is the breach: the call runs in a session, so the world lives on, and the
 * host looks for the tagged escapee after the result came back.
 */
import { type Dirent, existsSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '../harness/host.js';
import { procFile, tagged } from '../harness/proc.js';
import { poll } from '../harness/spawn.js';
import type { Row } from './types.js';

/** Bash that sets `mnt` (the cgroup2 mount), `cg` (its own cgroup) and `top` (the highest writable cgroup above it). */
const FIND = [
  'cg=$(sed -n "s/^0:://p" /proc/self/cgroup)',
  `mnt=$(awk '{for(i=7;i<=NF;i++) if($i=="-"){ if($(i+1)=="cgroup2" && $4=="/") print $5; break }}' /proc/self/mountinfo | head -n 1)`,
  'top=""; d=$mnt$cg; while [ "$d" != "$mnt" ] && [ "$d" != / ]; do d=$(dirname "$d"); [ -w "$d/cgroup.procs" ] && top=$d; done',
  'echo "cgroup $cg on $mnt; highest writable above: $top"; [ -n "$top" ] || top=$mnt$cg',
].join('; ');

/** The host's cgroup2 mount. */
function hostCgroupMount(): string | null {
  const info = procFile(process.pid, 'mountinfo') ?? '';
  for (const line of info.split('\n')) {
    const [left, right] = line.split(' - ');
    if (right?.startsWith('cgroup2 ')) return left?.split(' ')[4] ?? null;
  }
  return null;
}

/** The first directory named `name` below `dir` (depth-bounded), or null. */
function findDir(dir: string, name: string, depth = 12): string | null {
  if (depth < 0) return null;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    if (e.name === name) return join(dir, e.name);
    const below = findDir(join(dir, e.name), name, depth - 1);
    if (below) return below;
  }
  return null;
}

/** Armed where this user may move a process between cgroups of the host's cgroup2 tree. */
async function armCgroups(host: Host): Promise<string | null> {
  const mnt = hostCgroupMount();
  if (!mnt) return 'the host has no cgroup2 mount';
  const out = await host.sh(`cg=$(sed -n "s/^0:://p" /proc/self/cgroup); [ -w "${mnt}$cg/cgroup.procs" ]`);
  return out.code === 0 ? null : `${host.user.name} cannot write its own cgroup.procs in the host's cgroup2 tree`;
}

function escapeRow(id: string, title: string, target: string): Row {
  const command = (host: Host) =>
    `${FIND}; t=${target}; ( if echo $BASHPID > "$t/cgroup.procs"; then echo "moved into $t"; exec -a ${host.tag} sleep 60; fi ) & c=$!; ` +
    `for i in $(seq 250); do grep -qa "^${host.tag}" /proc/$c/cmdline 2>/dev/null && break; kill -0 $c 2>/dev/null || break; sleep 0.02; done`;
  return {
    id,
    klass: 'cgroup',
    title,
    proof: 'the host finds the tagged escapee alive after the call returned',
    arm: armCgroups,
    command,
    attempt: async (host) => (await host.mcp({ log: false })).bash({ command: command(host) }),
    async judge(host) {
      // A call ends what it left before it answers; give the end a moment, polled.
      const gone = await poll(() => tagged(host.tag).length === 0, 3_000);
      const left = tagged(host.tag);
      return {
        failed: !gone,
        evidence: gone ? 'no escapee is left after the call' : `escapee host pid ${left.join(', ')} outlived its call`,
      };
    },
  };
}

export const cgroupRows: Row[] = [
  escapeRow(
    'cgroup-escape-to-world',
    "move a child into the world's cgroup (echo $BASHPID > …/cgroup.procs)",
    '"$top"',
  ),
  escapeRow('cgroup-escape-to-parent', "move a child into the parent of the world's cgroup", '"$(dirname "$top")"'),
  {
    id: 'cgroup-mkdir',
    klass: 'cgroup',
    title: 'make a cgroup of its own below its call’s',
    proof: 'the host sees the new cgroup directory in its cgroup2 tree',
    async arm(host) {
      const why = await armCgroups(host);
      if (why) return why;
      host.hooks = {
        held() {
          const mnt = hostCgroupMount();
          if (!mnt) throw new Error('the host has no cgroup2 mount');
          // Wherever it landed (a call starts in the world's nursery cgroup, then moves).
          const made = findDir(mnt, `${host.tag}-cg`);
          host.facts.made = made;
          if (made) host.defer(() => existsSync(made) && rmdirSync(made));
        },
      };
      return null;
    },
    command: (host) => `${host.live()}${FIND}; mkdir "$mnt$cg/${host.tag}-cg"; (${host.probe('hold')})`,
    judge(host) {
      const made = host.facts.made as string | null | undefined;
      return { failed: !!made, evidence: made ? `the host sees ${made}` : 'no new cgroup on the host' };
    },
  },
];
