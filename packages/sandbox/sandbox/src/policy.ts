/**
 * ctx.sandboxPolicy: resolves the sandbox of each run from the composition's mode, per-owner
 * overrides, the writable roots (the workspace) and the network switch. A mode cannot change
 * for an owner while something holds a fence on it (a live PTY started in the old mode).
 */
import { isAbsolute, resolve } from 'node:path';
import { DshError, isOwner, type Owner } from '@dsh/core';
import { type ResolvedSandbox, SANDBOX_MODES, type SandboxMode } from './types.js';

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
  /** Network in restricted modes. @default false */
  network?: boolean;
}

/** Per-owner sandbox decisions. */
export class SandboxPolicyService {
  readonly mode: SandboxMode;
  readonly workspace: string;
  private readonly roots: string[];
  private readonly network: boolean;
  private readonly overrides = new Map<Owner, SandboxMode>();
  private readonly fences = new Map<Owner, number>();
  private readonly scopes = new WeakMap<Owner, string>();
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
    this.network = options.network ?? false;
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
      network: mode === 'danger-full-access' || this.network,
      scope: owner ? this.scopeOf(owner) : 'shared',
    };
  }

  /** The opaque world key of `owner`: each agent its own world, never another's. */
  private scopeOf(owner: Owner): string {
    let scope = this.scopes.get(owner);
    if (!scope) {
      scope = `agent-${++this.scopeCount}`;
      this.scopes.set(owner, scope);
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
