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
import { IF_EXISTS, IF_FILE } from './kernel-masks.js';
import { WorldLimitGroups } from './limits.js';

/** The name of a host's nursery cgroup (see @dsh/subprocess-local). */
const NURSERY = 'host';

import type { ResolvedSandbox } from './types.js';

/** Where the seccomp descriptor is filled in (removed when the world has no program). */
export const SECCOMP_SLOT = '--dsh-seccomp';
/** The descriptors the shim opens for bwrap: the seccomp program, and the world's cgroup directory. */
const SECCOMP_FD = 4;
const CGROUP_FD = 5;
/** The channel's descriptors inside (bubblewrap's init closes all past stdio: it holds none of the channel). */
const CHANNEL_IN_FD = 6;
const CHANNEL_OUT_FD = 7;
/**
 * The descriptors of the output directories the server writes through, one each (the shell that
 * starts a world can name only 0-9; an output directory past these is bound writable).
 */
const OUTPUT_FDS: readonly number[] = [3, 8];
/** The fence step that opens a directory on a descriptor for the server (`--dsh-open-dir FD PATH`). */
export const OPEN_DIR = '--dsh-open-dir';
/** The descriptor bwrap waits on before it runs the server, while pasta wires the world's network. */
const NET_BLOCK_FD = 9;
/** Where the network slot is filled in (`--block-fd` when pasta wires the network). */
export const NET_SLOT = '--dsh-net';
/** How long the shim waits for bwrap's namespaced child to appear (5 ms steps). */
const CHILD_WAIT_STEPS = 400;
/** How often pasta is tried while the child's namespace files are closed (10 ms apart). */
const PASTA_TRIES = 50;

/**
 * Starts the world: $1 is bwrap, $2 the seccomp program's file (or empty), $3 and $4 the pids
 * and memory limits (or empty), $5 the cgroup.procs files of the world's limit cgroups (colon
 * separated, or empty), the rest bwrap's arguments. In order: the shim joins the limit cgroups
 * (so the whole world is in them); waits for the host to move it out of its nursery; finds its
 * own cgroup v2 directory (none when it is the root, unreadable or not writable), writes the
 * limits there where the controllers are delegated, and opens it on a descriptor for the server
 * (the world sees the cgroup tree read-only: its commands cannot move themselves out, while
 * the server reaches the directory through the descriptor); opens the seccomp program; then
 * expands the fence's conditional steps where the world runs (`--dsh-if PATH N …`: the next N
 * arguments only where PATH exists; `--dsh-if-file`: only where it exists and is not a
 * directory) and the two slots; moves the channel off stdio (onto descriptors bubblewrap's init
 * closes, so only the server holds it) and execs bwrap.
 */
const SHIM = [
  'bwrap=$1; seccomp=$2; pmax=$3; mmax=$4; joins=$5; pasta=$6; shift 6',
  'if [ -n "$joins" ]; then old=$IFS; IFS=:; for f in $joins; do echo $$ > "$f" || exit 125; done; IFS=$old; fi',
  // A child starts in the host's nursery (`…/host`) and is moved into its tree's cgroup as the
  // spawn returns: wait for that move before looking (bounded; uncontained hosts have no nursery).
  'i=0; cg=$(sed -n "s/^0:://p" /proc/self/cgroup 2>/dev/null)',
  `while [ "\${cg##*/}" = "${NURSERY}" ] && [ $i -lt 200 ]; do sleep 0.005; i=$((i+1)); cg=$(sed -n "s/^0:://p" /proc/self/cgroup 2>/dev/null); done`,
  `mnt=$(awk '{for(i=7;i<=NF;i++) if($i=="-"){ if($(i+1)=="cgroup2" && $4=="/") print $5; break }}' /proc/self/mountinfo 2>/dev/null | head -n 1)`,
  'dir=""',
  'if [ -n "$cg" ] && [ "$cg" != "/" ] && [ -n "$mnt" ] && [ -w "$mnt$cg/cgroup.procs" ]; then dir="$mnt$cg"; fi',
  'if [ -n "$dir" ]; then',
  '  if [ -n "$pmax" ] && [ -w "$dir/pids.max" ]; then echo "$pmax" > "$dir/pids.max"; fi',
  '  if [ -n "$mmax" ] && [ -w "$dir/memory.max" ]; then echo "$mmax" > "$dir/memory.max"; echo 0 > "$dir/memory.swap.max" 2>/dev/null; fi',
  `  exec ${CGROUP_FD}<"$dir" || dir=""`,
  'fi',
  `if [ -n "$seccomp" ]; then exec ${SECCOMP_FD}<"$seccomp" || exit 125; fi`,
  'if [ -n "$pasta" ]; then',
  `  nd=$(mktemp -d "\${TMPDIR:-/tmp}/dsh-net.XXXXXX") || exit 125`,
  `  mkfifo "$nd/go" && exec ${NET_BLOCK_FD}<>"$nd/go" || { rm -rf "$nd"; exit 125; }`,
  'fi',
  'first=1; want=0; keep=1; step=""; step2=""',
  'for a in "$@"; do',
  '  if [ "$first" = 1 ]; then set --; first=0; fi',
  '  if [ -n "$step" ]; then',
  '    p=$a; step2=$step; step=""; continue',
  '  fi',
  '  if [ "$step2" = open ]; then',
  '    case $p in *[!0-9]*|"") exit 125 ;; esac',
  '    eval "exec $p<"\\$a"" || exit 125; step2=""; continue',
  '  fi',
  '  if [ -n "$step2" ]; then',
  '    want=$a',
  '    if [ "$step2" = if ] && [ -e "$p" ]; then keep=1',
  '    elif [ "$step2" = file ] && [ -e "$p" ] && [ ! -d "$p" ]; then keep=1',
  '    else keep=0; fi',
  '    step2=""; continue',
  '  fi',
  '  if [ "$want" -gt 0 ]; then',
  '    want=$((want-1)); if [ "$keep" = 1 ]; then set -- "$@" "$a"; fi; continue',
  '  fi',
  '  case $a in',
  `    ${IF_EXISTS}) step=if ;;`,
  `    ${IF_FILE}) step=file ;;`,
  `    ${OPEN_DIR}) step=open ;;`,
  `    ${SECCOMP_SLOT}) if [ -n "$seccomp" ]; then set -- "$@" --seccomp ${SECCOMP_FD}; fi ;;`,
  `    ${NET_SLOT}) if [ -n "$pasta" ]; then set -- "$@" --block-fd ${NET_BLOCK_FD}; fi ;;`,
  `    ${CGROUP_SLOT}) set -- "$@" --channel-fds ${CHANNEL_IN_FD},${CHANNEL_OUT_FD}; if [ -n "$dir" ]; then set -- "$@" --cgroup-fd ${CGROUP_FD}; fi ;;`,
  '    *) set -- "$@" "$a" ;;',
  '  esac',
  'done',
  `exec ${CHANNEL_IN_FD}<&0 ${CHANNEL_OUT_FD}>&1 </dev/null >/dev/null`,
  'if [ -z "$pasta" ]; then exec "$bwrap" "$@"; fi',
  // The network on, in a namespace of its own: bwrap starts blocked; pasta (a user-mode network
  // stack on the host side) is attached to the namespace; then bwrap goes on. The shim stays as
  // bwrap's parent, holding none of the channel.
  '"$bwrap" "$@" & b=$!',
  `exec ${CHANNEL_IN_FD}<&- ${CHANNEL_OUT_FD}>&-`,
  "trap 'kill -TERM $b 2>/dev/null' TERM INT HUP",
  `i=0; c=""; while [ -z "$c" ] && [ $i -lt ${CHILD_WAIT_STEPS} ]; do c=$(cat /proc/$b/task/$b/children 2>/dev/null); c=\${c%% *}; [ -n "$c" ] || sleep 0.005; i=$((i+1)); done`,
  // Never the host's namespace: the child's must differ from the shim's own. Its namespace files
  // can be closed to others for a moment while bubblewrap changes its credentials: tried again.
  'own=$(readlink /proc/self/ns/net); wired=""; i=0',
  `while [ -n "$c" ] && [ -z "$wired" ] && [ $i -lt ${PASTA_TRIES} ]; do`,
  '  ns=$(readlink "/proc/$c/ns/net" 2>/dev/null)',
  '  if [ -n "$ns" ] && [ "$ns" != "$own" ] && "$pasta" --config-net --quiet -t none -u none -T none -U none --no-map-gw --runas 0 --pid "$nd/pasta.pid" --netns "/proc/$c/ns/net" >/dev/null 2>&1; then wired=1; else sleep 0.01; fi',
  '  i=$((i+1))',
  'done',
  'pp=$(cat "$nd/pasta.pid" 2>/dev/null); rm -rf "$nd"',
  'if [ -z "$wired" ]; then',
  '  echo "dsh: the world\'s network could not be wired (pasta failed)" >&2; kill -KILL $b 2>/dev/null; exit 125',
  'fi',
  `echo go >&${NET_BLOCK_FD}; exec ${NET_BLOCK_FD}>&-`,
  // pasta keeps the namespace (and itself) alive: it ends with the world.
  'wait $b; st=$?; wait $b 2>/dev/null; st2=$?; [ $st -gt 128 ] && [ $st2 -lt 128 ] && st=$st2',
  'if [ -n "$pp" ]; then kill "$pp" 2>/dev/null; fi',
  'exit $st',
].join('\n');

/** How to start a world. */
export interface WorldStart {
  bwrapPath: string;
  /** Directories bound read-write at the same path (the composition's output copies). */
  outputDirs: readonly string[];
  /** The Node.js program the server runs on (inside the fence) and the runtime server's entry. */
  node: string;
  entry: string;
  /** Whether a path exists where the world runs. @default this machine's file system */
  exists?: (path: string) => boolean;
  /** The compiled seccomp program's file where bwrap runs, or null for none. @default null */
  seccompFile?: string | null;
  /** A file no one without capabilities can read, where bwrap runs. @default '/dev/null' */
  unreadable?: string;
  /** Whether the world runs on this machine. @default true */
  local?: boolean;
  /**
   * pasta, when a world with the network on gets a network namespace of its own wired through it
   * (dsh as root with passt installed); null: such a world shares the host's namespace. @default null
   */
  pasta?: string | null;
  /** Pids 1 to this one are kept for the machinery (the seccomp program protects them). @default none */
  machineryPids?: number;
}

/** The command line that starts a world for `policy` (its limit cgroups' join files in `joins`). */
export function worldArgv(
  policy: ResolvedSandbox,
  start: WorldStart,
  joins: readonly string[] = [],
): { argv: string[]; enforcement: 'full' | 'partial' } {
  const { args, enforcement } = fenceArgs(policy, {
    outputDirs: start.outputDirs,
    outputReadOnly: (start.local ?? true) && start.outputDirs.length <= OUTPUT_FDS.length,
    programs: [start.node, start.entry],
    ...(start.exists ? { exists: start.exists } : {}),
    ...(start.unreadable ? { unreadable: start.unreadable } : {}),
    local: start.local ?? true,
  });
  const limits = policy.limits ?? {};
  // Output directories are read-only inside; the server writes them through descriptors.
  const outputs =
    (start.local ?? true) && start.outputDirs.length <= OUTPUT_FDS.length
      ? start.outputDirs.map((dir, i) => ({ dir, fd: OUTPUT_FDS[i] as number }))
      : [];
  return {
    argv: [
      'sh',
      '-c',
      SHIM,
      'dsh-world',
      start.bwrapPath,
      start.seccompFile ?? '',
      limits.pids === undefined ? '' : String(limits.pids),
      limits.memoryBytes === undefined ? '' : String(limits.memoryBytes),
      joins.join(':'),
      policy.network && start.pasta ? start.pasta : '',
      ...args,
      ...outputs.flatMap((o) => [OPEN_DIR, String(o.fd), o.dir]),
      ...(policy.network && start.pasta ? ['--unshare-net'] : []),
      SECCOMP_SLOT,
      NET_SLOT,
      '--',
      start.node,
      start.entry,
      '--containment',
      'auto',
      ...(start.machineryPids ? ['--machinery-pids', String(start.machineryPids)] : []),
      ...outputs.flatMap((o) => ['--writable-fd', `${o.fd}=${o.dir}`]),
      CGROUP_SLOT,
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
  private readonly limitGroups: WorldLimitGroups | null;
  /** With the network on: whether it is a namespace of the world's own (wired through pasta). */
  readonly ownNetwork: boolean;

  constructor(
    readonly key: string,
    readonly policy: ResolvedSandbox,
    host: SubprocessRuntime,
    start: WorldStart,
  ) {
    this.ownNetwork = policy.network && Boolean(start.pasta);
    this.limitGroups = (start.local ?? true) && policy.limits ? WorldLimitGroups.make(policy.limits) : null;
    const { argv, enforcement } = worldArgv(policy, start, this.limitGroups?.joinFiles ?? []);
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

  /** Which of the policy's limits this world enforces through cgroups of the host (v1); v2 ones are set by the shim. */
  get limitsEnforced(): { pids: boolean; memory: boolean } {
    return this.limitGroups?.enforced ?? { pids: false, memory: false };
  }

  /** The world's limit counters (host side), or null when it has no limit cgroups here. */
  limitCounters(): { pids: number; oom: number } | null {
    return this.limitGroups?.counters() ?? null;
  }

  async dispose(): Promise<void> {
    await this.runtime.dispose();
    this.limitGroups?.dispose();
  }
}
