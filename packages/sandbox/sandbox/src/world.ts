/**
 * A sandbox world (DESIGN §15): one long-lived bubblewrap fence per agent and policy, running
 * the runtime server inside; the agent's confined commands, jobs and terminals are spawned
 * through it over a channel of raw pipes. So a command's parent is inside the fence (real wait
 * statuses), all of the agent's calls share one network namespace and one /tmp, and no call pays
 * a bubblewrap start.
 *
 * Containment inside the world: the channel starts as a small shell step (world-shim.ts) that
 * opens the world's own cgroup (the one the host gave the tree) on a descriptor for the server,
 * when it is writable; the tree stays read-only inside, and the server gives every tree its own
 * sub-cgroup through the descriptor, so an escapee (`setsid`, double fork) still ends with its
 * call and no command can move itself out. Without a writable cgroup the server tracks trees by
 * session.
 */
import { dirname } from 'node:path';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { type RemoteSubprocessRuntime, runtimeOver, startChannel } from '@dsh/subprocess-remote';
import { CGROUP_SLOT, fenceArgs } from './fence.js';
import { GitPlantWatch } from './git-watch.js';
import { ifExists } from './kernel-masks.js';
import { PRLIMIT_PATH, rlimitArgv, WorldLimitWatch } from './limit-watch.js';
import { WorldLimitGroups } from './limits.js';
import type { NetworkProxy } from './net/proxy.js';
import { type PrivateHome, removePrivateHome } from './private-home.js';
import { removeShareDir, WORLD_SHARE_DIR } from './share-dir.js';
import type { ResolvedSandbox } from './types.js';
import { NET_SLOT, OPEN_DIR, OUTPUT_FDS, PASTA_WRAP, SECCOMP_SLOT, SHIM } from './world-shim.js';

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
  /** Whether the user the world runs as is root where it runs. @default this process's */
  root?: boolean;
  /**
   * pasta, when a world with the network on gets a network namespace of its own wired through it
   * (dsh as root with passt installed); null: such a world shares the host's namespace. @default null
   */
  pasta?: string | null;
  /**
   * How pasta wires the network: `attach` (dsh as root) joins bwrap's own network namespace from
   * outside; `wrap` (unprivileged: pasta cannot join namespaces bwrap made) runs bwrap inside a
   * user and network namespace pasta makes, and bwrap's own user namespace keeps the caller's ids.
   * @default 'attach'
   */
  pastaMode?: 'attach' | 'wrap';
  /** Pids 1 to this one are kept for the machinery (the seccomp program protects them). @default none */
  machineryPids?: number;
  /** The world's private home (removed with the world). @default none */
  privateHome?: PrivateHome | null;
  /** The world's proxy and its unix socket on this machine (a policy naming hosts). @default none */
  proxy?: { proxy: NetworkProxy; socket: string } | null;
  /** Its share directory on this machine (share-dir.ts), bound read-only inside. @default none */
  shareDir?: string | null;
}

/** Where a world's proxy socket is bound inside it (`/run` is the world's own). */
export const WORLD_PROXY_SOCKET = '/run/dsh/net.sock';
/**
 * The loopback port of the world's own network namespace where its proxy is reached (HTTP and
 * SOCKS5 on one port): the namespace is the world's alone, so no other program holds it.
 */
export const WORLD_PROXY_PORT = 3128;

/** The runtime server's pid inside its world (after bubblewrap's init): never killed by the limit watch. */
const WORLD_SERVER_PID = 2;

/** This process's user and group, kept inside a world pasta wraps (where pasta's namespace makes it 0). */
function ownIds(): string[] {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  return uid === undefined || gid === undefined ? [] : ['--uid', String(uid), '--gid', String(gid)];
}

/**
 * The command line that starts a world for `policy` (its limit cgroups' join files in `joins`;
 * `rlimits`: what sets the limits inside, where no cgroup holds them, limit-watch.ts).
 */
export function worldArgv(
  policy: ResolvedSandbox,
  start: WorldStart,
  joins: readonly string[] = [],
  rlimits: readonly string[] = [],
): { argv: string[]; enforcement: 'full' | 'partial' } {
  const { args, enforcement } = fenceArgs(policy, {
    outputDirs: start.outputDirs,
    outputReadOnly: (start.local ?? true) && start.outputDirs.length <= OUTPUT_FDS.length,
    programs: [start.node, start.entry],
    ...(start.exists ? { exists: start.exists } : {}),
    ...(start.unreadable ? { unreadable: start.unreadable } : {}),
    local: start.local ?? true,
    ...(start.privateHome ? { homeArgs: start.privateHome.args, home: start.privateHome.home } : {}),
  });
  const limits = policy.limits ?? {};
  const pasta = policy.network && start.pasta ? start.pasta : null;
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
      pasta ? `${start.pastaMode === 'wrap' ? PASTA_WRAP : ''}${pasta}` : '',
      ...args,
      ...outputs.flatMap((o) => [OPEN_DIR, String(o.fd), o.dir]),
      ...(pasta && start.pastaMode !== 'wrap' ? ['--unshare-net'] : []),
      ...(pasta && start.pastaMode === 'wrap' ? ['--unshare-user', ...ownIds()] : []),
      ...(start.proxy ? ['--bind', start.proxy.socket, WORLD_PROXY_SOCKET] : []),
      // Every share directory (other worlds', unconfined agents') is hidden; this world's own is seen at one path.
      ...(start.shareDir ? ['--tmpfs', dirname(start.shareDir), '--ro-bind', start.shareDir, WORLD_SHARE_DIR] : []),
      SECCOMP_SLOT,
      NET_SLOT,
      '--',
      ...rlimits,
      start.node,
      start.entry,
      '--containment',
      'auto',
      ...(start.machineryPids ? ['--machinery-pids', String(start.machineryPids)] : []),
      ...outputs.flatMap((o) => ['--writable-fd', `${o.fd}=${o.dir}`]),
      ...(start.proxy ? ['--net-forward', `${WORLD_PROXY_PORT}=${WORLD_PROXY_SOCKET}`] : []),
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
  private readonly limitWatch: WorldLimitWatch | null = null;
  /** Where programs of this world keep their state (private-home.ts), or null. */
  readonly privateHome: PrivateHome | null;
  /** With the network on: whether it is a namespace of the world's own (wired through pasta). */
  readonly ownNetwork: boolean;
  /** The proxy of a world whose policy names hosts, or null. */
  readonly proxy: NetworkProxy | null;
  /** Its share directory on this machine, or null. */
  readonly shareDir: string | null;
  /** The watch for files planted where git would read them (a world on this machine, writable roots). */
  private readonly gitWatch: GitPlantWatch | null;

  constructor(
    readonly key: string,
    readonly policy: ResolvedSandbox,
    host: SubprocessRuntime,
    start: WorldStart,
  ) {
    this.ownNetwork = policy.network && Boolean(start.pasta);
    this.privateHome = start.privateHome ?? null;
    this.proxy = start.proxy?.proxy ?? null;
    this.shareDir = start.shareDir ?? null;
    const local = start.local ?? true;
    this.gitWatch = local && policy.mode === 'workspace-write' ? new GitPlantWatch(policy.writableRoots) : null;
    this.limitGroups = local && policy.limits ? WorldLimitGroups.make(policy.limits) : null;
    // Unprivileged, with no cgroup holding both limits: rlimits in the world's own user namespace,
    // watched from here (root is exempt from the process count, and always has the cgroups here).
    const held = this.limitGroups?.enforced;
    const root = start.root ?? process.getuid?.() === 0;
    const rlimits =
      policy.limits && !root && !(held?.pids && held.memory)
        ? local
          ? rlimitArgv(policy.limits)
          : ifExists(PRLIMIT_PATH, rlimitArgv(policy.limits, false))
        : [];
    const { argv, enforcement } = worldArgv(policy, start, this.limitGroups?.joinFiles ?? [], rlimits);
    this.enforcement = enforcement;
    const channel = startChannel(argv, host, { cwd: '/' });
    this.runtime = runtimeOver(channel, argv, { cwd: '/' }, host.sharesFilesystem);
    if (local && rlimits.length > 0 && channel.pid !== undefined && policy.limits) {
      this.limitWatch = new WorldLimitWatch(
        channel.pid,
        policy.limits,
        () => this.runtime.trackedCount > 0,
        start.machineryPids ?? WORLD_SERVER_PID,
        () => this.runtime.disconnected,
      );
    }
    this.proxy?.countRunsWith(() => this.runtime.trackedCount);
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

  /**
   * Which of the policy's limits this world enforces from here: through cgroups of the host (v1),
   * or rlimits and the host's watch (limit-watch.ts); v2 cgroup limits are set by the shim.
   */
  get limitsEnforced(): { pids: boolean; memory: boolean } {
    const groups = this.limitGroups?.enforced ?? { pids: false, memory: false };
    const watched = this.limitWatch !== null;
    return {
      pids: groups.pids || (watched && this.policy.limits?.pids !== undefined),
      memory: groups.memory || (watched && this.policy.limits?.memoryBytes !== undefined),
    };
  }

  /** The world's limit counters (host side), or null when neither cgroups nor a watch hold its limits here. */
  limitCounters(): { pids: number; oom: number } | null {
    const groups = this.limitGroups?.counters();
    const watch = this.limitWatch?.counters();
    if (!groups && !watch) return null;
    return { pids: (groups?.pids ?? 0) + (watch?.pids ?? 0), oom: (groups?.oom ?? 0) + (watch?.oom ?? 0) };
  }

  /** Connections the world's proxy refused so far (0 without a proxy). */
  networkRefusals(): number {
    return this.proxy?.refusals() ?? 0;
  }

  async dispose(): Promise<void> {
    await this.runtime.dispose();
    this.gitWatch?.dispose();
    await this.proxy?.close();
    this.limitGroups?.dispose();
    this.limitWatch?.dispose();
    removePrivateHome(this.privateHome);
    removeShareDir(this.shareDir);
  }
}
