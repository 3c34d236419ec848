/**
 * The Linux fence: bubblewrap, as execution worlds (see world.ts). One world per scope (agent)
 * and policy, started on first use and reused; a lost world is replaced; all of them end at
 * dispose and with dsh (`--die-with-parent`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { DshError, isInside } from '@dsh/core';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { SERVER_ENTRY } from '@dsh/subprocess-remote';
import { classifyRun } from './classify.js';
import { type FenceFiles, placeSeccomp, prepareFenceFiles } from './fence-dir.js';
import { hostListensOn } from './host-listeners.js';
import { type NetworkHooks, worldProxy } from './net/world-proxy.js';
import { makePrivateHome, type PrivateHome, removePrivateHome } from './private-home.js';
import { seccompSupported, worldSeccompFilter } from './seccomp/index.js';
import { makeShareDir, removeShareDir } from './share-dir.js';
import type { ResolvedSandbox, RunEvidence, Sandbox, SandboxFacts, World } from './types.js';
import { SandboxWorld } from './world.js';

/** Where Debian's bubblewrap installs the runner. */
export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
/** How long the one-time probe run of the runner may take. */
const PROBE_TIMEOUT_MS = 10_000;
/**
 * The processes of a world's machinery, by pid inside its pid namespace: bubblewrap's init (1)
 * and the runtime server (2). The seccomp program refuses signals and process control aimed at them.
 */
export const WORLD_MACHINERY_PIDS: readonly number[] = [1, 2];
/**
 * Pids 1 to this one are the machinery's: the server's threads take the first pids of the world,
 * and it uses up the rest of the range before any command runs (Node.js starts about a dozen).
 */
export const WORLD_MACHINERY_PID_MAX = 32;
/** Where Debian's passt package installs pasta, the user-mode network stack of worlds with the network on. */
export const PASTA_PATH = '/usr/bin/pasta';

/**
 * pasta, where a world with the network on can get a namespace of its own here (passt installed):
 * as root it joins bwrap's namespace from outside; an unprivileged dsh cannot join namespaces bwrap
 * made, so pasta makes them and runs bwrap inside.
 */
function pastaHere(): { pasta: string; pastaMode: 'attach' | 'wrap' } | null {
  try {
    accessSync(PASTA_PATH, constants.X_OK);
    return { pasta: PASTA_PATH, pastaMode: process.getuid?.() === 0 ? 'attach' : 'wrap' };
  } catch {
    return null;
  }
}

/** Options of {@link BubblewrapSandbox}. */
export interface BubblewrapOptions {
  /** Absolute path of the runner (tests point it at a missing one). @default '/usr/bin/bwrap' */
  bwrapPath?: string;
  /** Directories every world binds read-write at the same path (the composition's output copies). @default [] */
  outputDirs?: readonly string[];
  /**
   * The machine the runtime reaches, when it is not this one (a remote world): its Node.js and
   * runtime server entry, and why bubblewrap cannot confine there (null when it can), as its
   * runtime server probed. Worlds then start there, with the remote's paths. @default this machine
   */
  farSide?: FarSide;
  /** The private directory of the fence's own files on this machine. @default `<tmpdir>/dsh-<user>/fence` */
  fenceDir?: string;
  /** How the proxies of worlds whose policy names hosts resolve names and report connections. @default the machine's resolver, no reports */
  network?: NetworkHooks;
  /** Each world on this machine gets a share directory (share-dir.ts; a sub-agent's shareTools). @default false */
  shareDirs?: boolean;
}

/** What a remote runtime server said about confinement where it runs. */
export interface FarSide {
  /** The Node.js the world's server runs on there (its execute-only copy where one was made). */
  node: string;
  entry: string;
  /** A file of mode 000 there, bound over what a world must not read. @default '/dev/null' (reads as empty) */
  unreadable?: string;
  /** Whether the far side's user is root (rlimits bound an unprivileged one's worlds). @default true */
  root?: boolean;
  /** The runner there. @default the sandbox's own bwrapPath */
  bwrapPath?: string;
  /** Why bubblewrap cannot confine there, or null when it can. */
  unavailable: string | null;
}

/** The key of a world: its scope and its policy. */
function keyOf(policy: ResolvedSandbox): string {
  return JSON.stringify([
    policy.scope ?? '',
    policy.mode,
    [...policy.writableRoots].sort(),
    policy.network,
    policy.network ? null : (policy.hosts ?? null),
    policy.denyRead ?? [],
    policy.unprotected ?? [],
    policy.limits ?? {},
    policy.tmpBytes ?? 0,
    policy.privateHome ?? true,
  ]);
}

/** Confines commands in bubblewrap worlds. */
export class BubblewrapSandbox implements Sandbox {
  readonly bwrapPath: string;
  private readonly outputDirs: readonly string[];
  private readonly farSide: FarSide | undefined;
  private readonly fenceDir: string | undefined;
  private readonly network: NetworkHooks;
  private readonly shareDirs: boolean;
  private files: (FenceFiles & { seccomp: string | null }) | undefined;
  private probed: string | null | undefined; // undefined: not probed; null: works; string: why not
  private readonly worlds = new Map<string, SandboxWorld>();
  private disposing: Promise<void> | undefined;

  /** @throws DshError `INVALID_ARGUMENT` for a relative runner path or output directory. */
  constructor(options: BubblewrapOptions | string = {}) {
    const o = typeof options === 'string' ? { bwrapPath: options } : options;
    this.bwrapPath = o.bwrapPath ?? DEFAULT_BWRAP_PATH;
    this.outputDirs = [...(o.outputDirs ?? [])];
    this.farSide = o.farSide;
    this.fenceDir = o.fenceDir;
    this.network = o.network ?? {};
    this.shareDirs = o.shareDirs === true;
    if (!isAbsolute(this.bwrapPath)) {
      throw new DshError('INVALID_ARGUMENT', 'the bubblewrap path must be absolute.', { data: { field: 'bwrapPath' } });
    }
    for (const dir of this.outputDirs) {
      if (!isAbsolute(dir)) {
        throw new DshError('INVALID_ARGUMENT', 'output directories must be absolute.', {
          data: { field: 'outputDirs' },
        });
      }
    }
  }

  available(): boolean {
    return this.unavailableReason() === null;
  }

  unavailableReason(): string | null {
    if (this.probed !== undefined) return this.probed;
    this.probed = this.probe();
    return this.probed;
  }

  private probe(): string | null {
    const fix =
      'install bubblewrap (Debian: apt-get install bubblewrap), or opt out with sandbox mode danger-full-access';
    if (this.farSide)
      return this.farSide.unavailable === null
        ? null
        : `${this.farSide.unavailable} on the remote machine; ${fix} there`;
    if (process.platform !== 'linux') return `bubblewrap confinement is Linux-only; ${fix}`;
    try {
      accessSync(this.bwrapPath, constants.X_OK);
    } catch {
      return `no sandbox runner at ${this.bwrapPath}; ${fix}`;
    }
    const r = spawnSync(this.bwrapPath, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], {
      timeout: PROBE_TIMEOUT_MS,
      encoding: 'utf8',
    });
    if (r.status !== 0)
      return `the sandbox runner ${this.bwrapPath} does not start here (${(r.stderr || r.error?.message || '').trim()}); ${fix}`;
    return null;
  }

  world(policy: ResolvedSandbox, host: SubprocessRuntime): World {
    const why = this.unavailableReason();
    if (why !== null) {
      throw new DshError('SANDBOX_UNAVAILABLE', `No sandbox for mode ${policy.mode}: ${why}.`, {
        data: { mode: policy.mode },
      });
    }
    if (this.disposing) throw new DshError('DISPOSED', 'the sandbox has been disposed.');
    const key = keyOf(policy);
    const held = this.worlds.get(key);
    if (held && !held.lost) return held;
    if (held) {
      this.worlds.delete(key); // lost (it failed or died): the next run gets a new one
      void held.dispose().catch(() => undefined); // its private home too
    }
    try {
      if (!this.farSide) accessSync(this.bwrapPath, constants.X_OK); // a runner removed since the probe
    } catch {
      throw new DshError(
        'SANDBOX_UNAVAILABLE',
        `No sandbox for mode ${policy.mode}: bubblewrap (${this.bwrapPath}) is gone or not executable; reinstall it (apt-get install bubblewrap) and retry.`,
        { data: { mode: policy.mode, bwrapPath: this.bwrapPath } },
      );
    }
    const hosts = policy.network ? null : (policy.hosts ?? null);
    if (hosts && this.farSide) {
      throw new DshError(
        'SANDBOX_UNAVAILABLE',
        `No sandbox for mode ${policy.mode} with network by name: a world on a remote machine has no proxy yet; use no network or the whole network there.`,
        { data: { mode: policy.mode } },
      );
    }
    const files = this.farSide ? null : this.fenceFiles();
    const privateHome = files ? this.privateHomeFor(policy, files.dir) : null;
    const proxy = files && hosts ? worldProxy(hosts, files.dir, policy.scope ?? '', this.network) : null;
    const shareDir = files && this.shareDirs ? makeShareDir(files.dir) : null;
    const world = this.make(
      privateHome,
      proxy,
      shareDir,
      () =>
        new SandboxWorld(key, policy, host, {
          privateHome,
          proxy,
          shareDir,
          bwrapPath: this.farSide?.bwrapPath ?? this.bwrapPath,
          // The far side's paths cannot be looked at from here: they are bound as given (a missing
          // one makes the world fail to start, told as a runner failure, never a silent gap).
          ...(this.farSide ? { exists: () => true, local: false, root: this.farSide.root ?? true } : {}),
          outputDirs: this.outputDirs,
          node: this.farSide?.node ?? files?.node ?? process.execPath,
          entry: this.farSide?.entry ?? SERVER_ENTRY,
          seccompFile: files?.seccomp ?? null,
          ...(files?.seccomp ? { machineryPids: WORLD_MACHINERY_PID_MAX } : {}),
          ...((files ? pastaHere() : null) ?? { pasta: null }),
          ...(files ? { unreadable: files.unreadable } : {}),
          ...(this.farSide?.unreadable ? { unreadable: this.farSide.unreadable } : {}),
        }),
    );
    this.worlds.set(key, world);
    this.retireIdle(policy.scope ?? '', key);
    return world;
  }

  /** `create()`, with `home` removed and `proxy` closed when it throws. */
  private make(
    home: PrivateHome | null,
    proxy: { proxy: { close(): Promise<void> } } | null,
    shareDir: string | null,
    create: () => SandboxWorld,
  ): SandboxWorld {
    try {
      return create();
    } catch (error) {
      removePrivateHome(home);
      void proxy?.proxy.close();
      removeShareDir(shareDir);
      throw error;
    }
  }

  /** A private home for a world of `policy` on this machine (restricted modes), or null. */
  private privateHomeFor(policy: ResolvedSandbox, fenceDir: string): PrivateHome | null {
    if (policy.mode === 'danger-full-access' || policy.privateHome === false) return null;
    const hidden = [...(policy.denyRead ?? []), ...this.outputDirs.map((d) => dirname(d))];
    const home = process.env.HOME || homedir();
    return makePrivateHome(home, join(dirname(fenceDir), 'homes'), policy.writableRoots, (p) =>
      hidden.some((h) => isInside(p, h)),
    );
  }

  /**
   * The fence's files on this machine (made once): the execute-only Node.js, the unreadable
   * file and the seccomp program.
   * @throws DshError `UNSAFE_DIRECTORY` when the fence directory is not private.
   */
  private fenceFiles(): FenceFiles & { seccomp: string | null } {
    if (this.files) return this.files;
    const files = prepareFenceFiles(this.fenceDir);
    let seccomp: string | null = null;
    if (seccompSupported()) {
      const program = worldSeccompFilter({
        protectedPids: WORLD_MACHINERY_PIDS,
        protectedPidMax: WORLD_MACHINERY_PID_MAX,
      });
      const name = `seccomp-${createHash('sha256').update(program).digest('hex').slice(0, 16)}.bpf`;
      seccomp = placeSeccomp(files.dir, name, program);
    }
    this.files = { ...files, seccomp };
    return this.files;
  }

  classify(evidence: RunEvidence, policy: ResolvedSandbox, world: World): SandboxFacts {
    const limitsAfter = evidence.limitsBefore ? (world.limitCounters?.() ?? null) : null;
    const proxy = world instanceof SandboxWorld ? world.proxy : null;
    const refused =
      proxy && typeof evidence.refusalsBefore === 'number'
        ? // Only what was refused while this run was the world's only one is its own.
          proxy.refusalsSince(evidence.refusalsBefore).filter((r) => r.sole !== false)
        : [];
    // The host's listeners are evidence only where the host is this machine.
    return classifyRun(
      { ...evidence, limitsAfter, refused },
      policy,
      world.enforcement,
      this.farSide ? undefined : hostListensOn,
    );
  }

  /** Worlds that exist now, with their set-up time (for dumpConfig and benches). */
  worldsInUse(): {
    mode: string;
    scope: string;
    setUpMs: number | null;
    live: number;
    limits: { pids: boolean; memory: boolean };
    /** The world has a network namespace of its own (always with the network off). */
    ownNetwork: boolean;
  }[] {
    return [...this.worlds.values()].map((w) => ({
      mode: w.policy.mode,
      scope: w.policy.scope ?? '',
      setUpMs: w.setUpMs,
      live: w.runtime.trackedCount,
      limits: w.limitsEnforced,
      ownNetwork: !w.policy.network || w.ownNetwork,
    }));
  }

  dispose(): Promise<void> {
    this.disposing ??= Promise.all([...this.worlds.values()].map((w) => w.dispose())).then(() => {
      this.worlds.clear();
    });
    return this.disposing;
  }

  async disposeScope(scope: string): Promise<void> {
    const ending: Promise<void>[] = [];
    for (const [key, w] of this.worlds) {
      if ((w.policy.scope ?? '') !== scope) continue;
      this.worlds.delete(key);
      ending.push(w.dispose());
    }
    await Promise.all(ending);
  }

  /** A scope's other worlds (an older policy) end once nothing runs in them. */
  private retireIdle(scope: string, keep: string): void {
    for (const [key, w] of this.worlds) {
      if (key === keep || (w.policy.scope ?? '') !== scope || w.runtime.trackedCount > 0) continue;
      this.worlds.delete(key);
      void w.dispose();
    }
  }
}
