/**
 * The Linux fence: bubblewrap. Read-only `/`, the writable roots bound read-write, a fresh
 * `/tmp`, `/proc` and `/dev`, no network (and an empty `/run`) unless allowed, and the sandbox
 * dies with its parent.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { DshError } from '@dsh/core';
import { classifyRun } from './classify.js';
import type { Confinement, ResolvedSandbox, RunEvidence, Sandbox, SandboxFacts } from './types.js';

/** Where Debian's bubblewrap installs the runner. */
export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
/** How long the one-time probe run of the runner may take. */
const PROBE_TIMEOUT_MS = 10_000;

/** Confines commands with bubblewrap. */
export class BubblewrapSandbox implements Sandbox {
  private probed: string | null | undefined; // undefined: not probed; null: works; string: why not

  /** @param bwrapPath absolute path of the runner (tests point it at a missing one). @default '/usr/bin/bwrap' */
  constructor(readonly bwrapPath: string = DEFAULT_BWRAP_PATH) {
    if (!isAbsolute(bwrapPath)) {
      throw new DshError('INVALID_ARGUMENT', 'the bubblewrap path must be absolute.', { data: { field: 'bwrapPath' } });
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

  confine(argv: readonly string[], policy: ResolvedSandbox, options: { terminal?: boolean } = {}): Confinement {
    const why = this.unavailableReason();
    if (why !== null)
      throw new DshError('SANDBOX_UNAVAILABLE', `No sandbox for mode ${policy.mode}: ${why}.`, {
        data: { mode: policy.mode },
      });
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
    let enforcement: 'full' | 'partial' = 'full';
    if (policy.mode === 'workspace-write') {
      for (const root of policy.writableRoots) {
        if (existsSync(root)) args.push('--bind', root, root);
        else enforcement = 'partial'; // a root that does not exist cannot be bound (nor written)
      }
    }
    // No network also means no daemons: their sockets live in /run, which a network namespace
    // does not cover (path sockets are files). Sockets elsewhere stay reachable (see README).
    if (!policy.network) args.push('--unshare-net', '--tmpfs', '/run');
    // No capabilities inside, even when dsh runs as root: otherwise the command could remount
    // `/` read-write or undo the masks. Its own pid namespace: no view of (or signal to) host
    // processes, and everything in it dies with the sandbox.
    args.push('--cap-drop', 'ALL', '--unshare-pid', '--die-with-parent');
    // A PTY shell keeps its session: job control needs the terminal.
    if (!options.terminal) args.push('--new-session');
    return { argv: [this.bwrapPath, ...args, '--', ...argv], enforcement };
  }

  classify(evidence: RunEvidence, policy: ResolvedSandbox, confinement: Confinement): SandboxFacts {
    return classifyRun(evidence, policy, confinement.enforcement);
  }
}
