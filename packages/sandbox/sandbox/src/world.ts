/**
 * A sandbox world (DESIGN §15): one long-lived bubblewrap fence per agent and policy, running
 * the runtime server inside; the agent's confined commands, jobs and terminals are spawned
 * through it over a channel of raw pipes. So a command's parent is inside the fence (real wait
 * statuses), all of the agent's calls share one network namespace and one /tmp, and no call pays
 * a bubblewrap start.
 *
 * Containment inside the world: the channel starts as a small shell step that binds the world's
 * own cgroup (the one the host gave the tree) read-write into the fence, when it is writable; the
 * server inside then gives every tree its own sub-cgroup, so an escapee (`setsid`, double fork)
 * still ends with its call. Without a writable cgroup the server tracks trees by session.
 */
import type { SubprocessRuntime } from '@dsh/subprocess';
import { connectChannel, type RemoteSubprocessRuntime } from '@dsh/subprocess-remote';
import { CGROUP_SLOT, fenceArgs } from './fence.js';

/** The name of a host's nursery cgroup (see @dsh/subprocess-local). */
const NURSERY = 'host';

import type { ResolvedSandbox } from './types.js';

/**
 * Runs bwrap with the world's cgroup bound in place of {@link CGROUP_SLOT}: $1 is bwrap, the rest
 * its arguments. The cgroup is found from /proc/self/cgroup and the cgroup2 mount; nothing is
 * bound when it is the root, unreadable or not writable.
 */
const SHIM = [
  'bwrap=$1; shift',
  // A child starts in the host's nursery (`…/host`) and is moved into its tree's cgroup as the
  // spawn returns: wait for that move before looking (bounded; uncontained hosts have no nursery).
  'i=0; cg=$(sed -n "s/^0:://p" /proc/self/cgroup 2>/dev/null)',
  `while [ "\${cg##*/}" = "${NURSERY}" ] && [ $i -lt 200 ]; do sleep 0.005; i=$((i+1)); cg=$(sed -n "s/^0:://p" /proc/self/cgroup 2>/dev/null); done`,
  `mnt=$(awk '{for(i=7;i<=NF;i++) if($i=="-"){ if($(i+1)=="cgroup2" && $4=="/") print $5; break }}' /proc/self/mountinfo 2>/dev/null | head -n 1)`,
  'dir=""',
  'if [ -n "$cg" ] && [ "$cg" != "/" ] && [ -n "$mnt" ] && [ -w "$mnt$cg/cgroup.procs" ]; then dir="$mnt$cg"; fi',
  'first=1',
  'for a in "$@"; do',
  '  if [ "$first" = 1 ]; then set --; first=0; fi',
  `  if [ "$a" = "${CGROUP_SLOT}" ]; then`,
  '    if [ -n "$dir" ]; then set -- "$@" --bind "$dir" "$dir"; fi',
  '  else set -- "$@" "$a"; fi',
  'done',
  'exec "$bwrap" "$@"',
].join('\n');

/** How to start a world. */
export interface WorldStart {
  bwrapPath: string;
  /** Directories bound read-write at the same path (the composition's output copies). */
  outputDirs: readonly string[];
  /** The Node.js program and the runtime server's entry, as the host sees them. */
  node: string;
  entry: string;
  /** Whether a path exists where the world runs. @default this machine's file system */
  exists?: (path: string) => boolean;
}

/** The command line that starts a world for `policy`. */
export function worldArgv(
  policy: ResolvedSandbox,
  start: WorldStart,
): { argv: string[]; enforcement: 'full' | 'partial' } {
  const { args, enforcement } = fenceArgs(policy, start.outputDirs, [start.node, start.entry], start.exists);
  return {
    argv: [
      'sh',
      '-c',
      SHIM,
      'dsh-world',
      start.bwrapPath,
      ...args,
      '--',
      start.node,
      start.entry,
      '--containment',
      'auto',
    ],
    enforcement,
  };
}

/** A running world. */
export class SandboxWorld {
  readonly runtime: RemoteSubprocessRuntime;
  readonly enforcement: 'full' | 'partial';
  /** When it was started (epoch ms), and how long its server took to answer (ms, once it did). */
  readonly startedAt = Date.now();
  setUpMs: number | null = null;

  constructor(
    readonly key: string,
    readonly policy: ResolvedSandbox,
    host: SubprocessRuntime,
    start: WorldStart,
  ) {
    const { argv, enforcement } = worldArgv(policy, start);
    this.enforcement = enforcement;
    this.runtime = connectChannel(argv, host, { cwd: '/' });
    this.runtime.ready.then(
      () => {
        this.setUpMs = Date.now() - this.startedAt;
      },
      () => undefined,
    );
  }

  /** True once the world's channel is gone (it failed to start, or died). */
  get lost(): boolean {
    return this.runtime.disconnected;
  }

  dispose(): Promise<void> {
    return this.runtime.dispose();
  }
}
