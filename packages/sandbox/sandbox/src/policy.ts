/**
 * ctx.sandboxPolicy: resolves the sandbox of each run from the composition's mode, per-owner
 * overrides, the writable roots (the workspace) and the network switch. A mode cannot change
 * for an owner while something holds a fence on it (a live PTY started in the old mode).
 */
import { homedir, totalmem } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { DshError, isOwner, type Owner } from '@dsh/core';
import { WORLD_TMP_BYTES } from './fence.js';
import { WORLD_MEMORY_SHARE, WORLD_PIDS_MAX } from './limits.js';
import { HostRules, type NetworkRules } from './net/rules.js';
import { type ResolvedSandbox, SANDBOX_MODES, type SandboxMode, type WorldLimits } from './types.js';

/**
 * What no confined command may read by default: the usual credential stores, and dsh's own
 * directory (session logs of every agent, with what a person typed).
 */
export const DEFAULT_DENY_READ: readonly string[] = [
  '~/.ssh',
  '~/.aws',
  '~/.config/gcloud',
  '~/.azure',
  '~/.kube',
  '~/.docker',
  '~/.netrc',
  '~/.gnupg',
  '~/.npmrc',
  '~/.pypirc',
  '~/.git-credentials',
  '~/.config/gh',
  '~/.dsh',
];

/** `path` with a leading `~/` made absolute against `home`; null when it is neither absolute nor `~/`. */
export function expandHome(path: string, home: string = homedir()): string | null {
  if (path.startsWith('~/')) return resolve(join(home, path.slice(2)));
  return isAbsolute(path) ? resolve(path) : null;
}

/** The default limits of a world: {@link WORLD_PIDS_MAX} processes, {@link WORLD_MEMORY_SHARE} of the machine's memory. */
export function defaultWorldLimits(): WorldLimits {
  return { pids: WORLD_PIDS_MAX, memoryBytes: Math.floor(totalmem() * WORLD_MEMORY_SHARE) };
}

declare module '@dsh/core' {
  interface ServiceMap {
    /** Decides the sandbox of each run. */
    sandboxPolicy: SandboxPolicyService;
    /** Confines command lines (bubblewrap on Linux). */
    sandbox: import('./types.js').Sandbox;
  }
}

/** Options of {@link SandboxPolicyService}. */
export interface SandboxPolicyOptions {
  /** The composition's mode. @default 'workspace-write' */
  mode?: SandboxMode;
  /** Absolute workspace: the writable root of workspace-write, and the immutable cwd. */
  workspace: string;
  /** Extra absolute writable roots. @default [] */
  writableRoots?: readonly string[];
  /**
   * Network in restricted modes: false (none), true (all of it), or the hosts a world may reach
   * by name through its proxy (`{ allow, deny?, allowPrivate? }`; deny wins).
   * @default false
   * @throws DshError `INVALID_ARGUMENT` (from the constructor) for an entry that is not a host.
   */
  network?: boolean | NetworkRules;
  /**
   * Paths no confined command may read (absolute, or `~/` for the home directory); a read there
   * is reported as `[sandbox denied: file PATH; …]`. Replaces the default list.
   * @default DEFAULT_DENY_READ
   */
  denyRead?: readonly string[];
  /** More paths hidden from worlds besides `denyRead` (dsh's own: a custom session log directory). @default [] */
  hidden?: readonly string[];
  /** Paths inside the writable roots left writable though they are protected by default (`.git/hooks`, `.envrc`, …). @default [] */
  allowWrite?: readonly string[];
  /** Per-world limits; a field set to null lifts that limit. @default defaultWorldLimits() */
  limits?: { pids?: number | null; memoryBytes?: number | null };
  /** Size of a world's `/tmp` in bytes. @default WORLD_TMP_BYTES (2 GiB, and within the memory limit) */
  tmpBytes?: number;
  /**
   * Programs' state (viminfo, histories, `~/.local/share`, `~/.config`) goes to a private home of
   * each world, seeded from the real one; false leaves `$HOME` read-only. @default true
   */
  privateHome?: boolean;
}

function positiveInt(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new DshError('INVALID_ARGUMENT', `sandbox ${field} must be a positive integer.`, { data: { field } });
  }
  return value;
}

function absolutePaths(paths: readonly unknown[] | undefined, field: string): string[] {
  return (paths ?? []).map((p) => {
    const abs = typeof p === 'string' ? expandHome(p) : null;
    if (abs === null) {
      throw new DshError('INVALID_ARGUMENT', `sandbox ${field} entries must be absolute paths or start with ~/.`, {
        data: { field },
      });
    }
    return abs;
  });
}

/** Per-owner sandbox decisions. */
export class SandboxPolicyService {
  readonly mode: SandboxMode;
  readonly workspace: string;
  private readonly roots: string[];
  private readonly network: boolean;
  /** The hosts reachable by name (network false), or null. */
  readonly hosts: NetworkRules | null;
  /** The resolved deny-read list (absolute). */
  readonly denyRead: readonly string[];
  private readonly allowWrite: readonly string[];
  /** The limits of every world. */
  readonly limits: WorldLimits;
  readonly tmpBytes: number;
  /** Whether worlds get a private home. */
  readonly privateHome: boolean;
  private readonly overrides = new Map<Owner, SandboxMode>();
  private readonly fences = new Map<Owner, number>();
  private readonly scopes = new WeakMap<Owner, string>();
  /** The display name of each scope's owner (for records that carry a scope, not an owner). */
  private readonly names = new Map<string, string>();
  private scopeCount = 0;

  /** @throws DshError `INVALID_ARGUMENT` naming the option. */
  constructor(options: SandboxPolicyOptions) {
    const mode = options.mode ?? 'workspace-write';
    if (!SANDBOX_MODES.includes(mode)) {
      throw new DshError('INVALID_ARGUMENT', `sandbox mode must be one of ${SANDBOX_MODES.join(', ')}.`, {
        data: { field: 'mode' },
      });
    }
    if (typeof options.workspace !== 'string' || !isAbsolute(options.workspace)) {
      throw new DshError('INVALID_ARGUMENT', 'the sandbox policy needs an absolute workspace.', {
        data: { field: 'workspace' },
      });
    }
    for (const r of options.writableRoots ?? []) {
      if (typeof r !== 'string' || !isAbsolute(r)) {
        throw new DshError('INVALID_ARGUMENT', 'writable roots must be absolute paths.', {
          data: { field: 'writableRoots' },
        });
      }
    }
    this.mode = mode;
    this.workspace = resolve(options.workspace);
    this.roots = [this.workspace, ...(options.writableRoots ?? []).map((r) => resolve(r))];
    const network = options.network ?? false;
    if (typeof network !== 'boolean' && (typeof network !== 'object' || network === null)) {
      throw new DshError('INVALID_ARGUMENT', 'sandbox network must be true, false or { allow: [...] }.', {
        data: { field: 'network' },
      });
    }
    this.network = network === true;
    this.hosts = typeof network === 'object' ? new HostRules(network).copy() : null;
    this.denyRead = [
      ...new Set([
        ...absolutePaths(options.denyRead ?? DEFAULT_DENY_READ, 'denyRead'),
        ...absolutePaths(options.hidden, 'hidden'),
      ]),
    ];
    this.allowWrite = absolutePaths(options.allowWrite, 'allowWrite');
    const defaults = defaultWorldLimits();
    const pick = (key: keyof WorldLimits): number | undefined => {
      const value = options.limits?.[key];
      if (value === null) return undefined;
      return value === undefined ? defaults[key] : positiveInt(value, `limits.${key}`);
    };
    const limits: WorldLimits = {};
    const pids = pick('pids');
    const memoryBytes = pick('memoryBytes');
    if (pids !== undefined) limits.pids = pids;
    if (memoryBytes !== undefined) limits.memoryBytes = memoryBytes;
    this.limits = limits;
    this.tmpBytes = options.tmpBytes === undefined ? WORLD_TMP_BYTES : positiveInt(options.tmpBytes, 'tmpBytes');
    if (options.privateHome !== undefined && typeof options.privateHome !== 'boolean') {
      throw new DshError('INVALID_ARGUMENT', 'sandbox privateHome must be a boolean.', {
        data: { field: 'privateHome' },
      });
    }
    this.privateHome = options.privateHome ?? true;
  }

  /** The mode in force for `owner` (its override, else the composition's). */
  modeFor(owner?: Owner): SandboxMode {
    return (owner && this.overrides.get(owner)) ?? this.mode;
  }

  /** The sandbox of one run for `owner`, optionally in another `mode` (an approved escalation). */
  resolve(owner?: Owner, mode: SandboxMode = this.modeFor(owner)): ResolvedSandbox {
    return {
      mode,
      writableRoots: mode === 'read-only' ? [] : [...this.roots],
      readableRoots: [...this.roots],
      network: mode === 'danger-full-access' || this.network,
      ...(this.hosts && mode !== 'danger-full-access' ? { hosts: this.hosts } : {}),
      denyRead: this.denyRead,
      unprotected: this.allowWrite,
      limits: this.limits,
      tmpBytes: this.tmpBytes,
      privateHome: this.privateHome,
      scope: owner ? this.scopeOf(owner) : 'shared',
    };
  }

  /** The world key of `owner` when it has one (it ran something confined), else null. */
  scopeIf(owner: Owner): string | null {
    return this.scopes.get(owner) ?? null;
  }

  /** The display name of the owner of `scope` (`shared` for runs without an owner), or null. */
  nameOf(scope: string): string | null {
    return scope === 'shared' ? 'shared' : (this.names.get(scope) ?? null);
  }

  /** The opaque world key of `owner`: each agent its own world, never another's. */
  private scopeOf(owner: Owner): string {
    let scope = this.scopes.get(owner);
    if (!scope) {
      scope = `agent-${++this.scopeCount}`;
      this.scopes.set(owner, scope);
      this.names.set(scope, owner.name);
    }
    return scope;
  }

  /**
   * Sets `owner`'s mode for later runs.
   * @throws DshError `SANDBOX_FENCED` while the owner holds a live fence (e.g. an open terminal).
   */
  setMode(owner: Owner, mode: SandboxMode): void {
    if (!isOwner(owner) || !SANDBOX_MODES.includes(mode)) {
      throw new DshError('INVALID_ARGUMENT', 'setMode needs an owner and a sandbox mode.');
    }
    if ((this.fences.get(owner) ?? 0) > 0 && mode !== this.modeFor(owner)) {
      throw new DshError(
        'SANDBOX_FENCED',
        'The sandbox mode cannot change while your terminals are open; close them first.',
      );
    }
    this.overrides.set(owner, mode);
  }

  /** Holds the owner's mode fixed until the returned release is called (a live PTY does this). */
  fence(owner: Owner): () => void {
    this.fences.set(owner, (this.fences.get(owner) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.fences.set(owner, (this.fences.get(owner) ?? 1) - 1);
    };
  }
}

/** True when `wider` allows strictly more than `narrower`. */
export function isWider(wider: SandboxMode, narrower: SandboxMode): boolean {
  return SANDBOX_MODES.indexOf(wider) > SANDBOX_MODES.indexOf(narrower);
}
