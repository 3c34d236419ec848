/**
 * `LocalSubprocessRuntime`: the local ctx.subprocess provider (POSIX process groups and
 * sessions, /proc whole-tree observation on Linux).
 */
import { DshError } from '@dsh/core';
import {
  childEnv,
  type SpawnSpec,
  type SubprocessHandle,
  SubprocessRuntime,
  type SubprocessTerminalHandle,
  type TerminalSpawnSpec,
  validateSpawnSpec,
  validateTerminalSpawnSpec,
} from '@dsh/subprocess';
import { CgroupContainer } from './cgroup.js';
import { checkCwd, LocalSubprocessHandle } from './local-handle.js';
import { LocalTerminalHandle } from './local-terminal.js';
import { takeSnapshot } from './process-tree.js';
import { loadPty } from './pty-loader.js';
import { resolveExecutableSync } from './resolve-executable.js';
import { TreeWatcher } from './tree-watcher.js';

/** Finished handles kept before one batched /proc scan drops those whose trees are gone (bounds tracking memory). */
export const PRUNE_BATCH = 64;

/** Options of {@link LocalSubprocessRuntime}. None is required. */
export interface LocalSubprocessRuntimeOptions {
  /**
   * Where `process.env` is read from for the scrubbed parent environment.
   * @default process.env
   */
  parentEnv?: NodeJS.ProcessEnv;
  /**
   * How trees are tracked. `'auto'`: also give each tree its own cgroup v2 group when a writable
   * one with `cgroup.kill` exists (Linux), so `setsid`/double-fork escapees are ended too; the
   * child is moved in as the spawn returns, with what it forked by then (see adopt.ts for the one
   * race this leaves). `'strict'`: the same, with each child born inside its cgroup (slower: the
   * host moves itself for every spawn). `'session'`: session, process group and parent links only.
   * @default 'auto'
   */
  containment?: 'auto' | 'strict' | 'session';
}

/** The local process substrate. `new LocalSubprocessRuntime()` needs no arguments. */
export class LocalSubprocessRuntime extends SubprocessRuntime {
  private readonly watcher = new TreeWatcher();
  private readonly live = new Set<LocalSubprocessHandle>();
  private readonly finished = new Set<LocalSubprocessHandle>();
  private readonly terminals = new Set<LocalTerminalHandle>();
  private disposing: Promise<void> | undefined;
  private readonly container: CgroupContainer | null;

  constructor(private readonly options: LocalSubprocessRuntimeOptions = {}) {
    super();
    const containment = options.containment ?? 'auto';
    if (containment !== 'auto' && containment !== 'strict' && containment !== 'session') {
      throw new DshError('INVALID_ARGUMENT', "containment must be 'auto', 'strict' or 'session'.", {
        data: { field: 'containment' },
      });
    }
    this.container = containment === 'session' ? null : CgroupContainer.detect(containment === 'strict');
  }

  /** `'cgroup'` when trees get their own cgroup, else `'session'`. */
  get containment(): 'cgroup' | 'session' {
    return this.container ? 'cgroup' : 'session';
  }

  /**
   * @throws DshError `RELATIVE_EXECUTABLE`, `EXECUTABLE_NOT_FOUND`, `NOT_EXECUTABLE`, `INVALID_SPEC` (as rejections).
   */
  async resolveExecutable(program: string, env: SpawnSpec['env']): Promise<string> {
    if (typeof program !== 'string' || program === '') {
      throw new DshError('INVALID_SPEC', 'program must be a non-empty string.', { data: { field: 'program' } });
    }
    return resolveExecutableSync(program, childEnv(env, this.options.parentEnv));
  }

  /**
   * Starts a process tree in a new session and process group.
   * @throws DshError `INVALID_SPEC`, `RELATIVE_EXECUTABLE` (synchronously), `DISPOSED` after dispose().
   */
  spawn(spec: SpawnSpec): SubprocessHandle {
    validateSpawnSpec(spec);
    if (this.disposing) {
      throw new DshError('DISPOSED', 'this subprocess runtime has been disposed; create a new one.');
    }
    const handle = new LocalSubprocessHandle(spec, this.watcher, this.options.parentEnv, this.container);
    this.live.add(handle);
    void handle.done.then(() => this.retire(handle));
    return handle;
  }

  /**
   * Starts `spec.argv` on a new pseudo-terminal (node-pty, loaded on first use). The spec's
   * signal cancels the allocation only; a returned handle owns its lifetime.
   * @throws DshError `INVALID_SPEC`, `RELATIVE_EXECUTABLE` (synchronously); as rejections
   *   `ABORTED`, `DISPOSED`, `CWD_NOT_FOUND`, `EXECUTABLE_NOT_FOUND`, `NOT_EXECUTABLE`, `PTY_UNAVAILABLE`, `SPAWN_FAILED`.
   */
  spawnTerminal(spec: TerminalSpawnSpec): Promise<SubprocessTerminalHandle> {
    validateTerminalSpawnSpec(spec);
    return this.startTerminal(spec);
  }

  private async startTerminal(spec: TerminalSpawnSpec): Promise<SubprocessTerminalHandle> {
    const aborted = (): DshError => new DshError('ABORTED', 'terminal allocation was aborted.');
    if (spec.signal?.aborted) throw aborted();
    if (this.disposing) throw new DshError('DISPOSED', 'this subprocess runtime has been disposed; create a new one.');
    const pty = await loadPty();
    if (spec.signal?.aborted) throw aborted();
    if (this.disposing) throw new DshError('DISPOSED', 'this subprocess runtime has been disposed; create a new one.');
    checkCwd(spec.cwd);
    const env = childEnv(spec.env, this.options.parentEnv);
    const program = resolveExecutableSync(spec.argv[0] as string, env);
    let handle: LocalTerminalHandle;
    try {
      handle = new LocalTerminalHandle(spec, { pty, program, env, watcher: this.watcher, container: this.container });
    } catch (error) {
      throw new DshError('SPAWN_FAILED', `the terminal could not be started: ${String(error)}`, { cause: error });
    }
    this.terminals.add(handle);
    void handle.done.then(() => this.terminals.delete(handle));
    return handle;
  }

  /** Number of process trees this runtime still tracks (started and not yet observed gone). */
  get trackedCount(): number {
    return this.live.size + this.finished.size + this.terminals.size;
  }

  /** Terminates every tracked tree and waits for each to be gone. Idempotent. */
  dispose(): Promise<void> {
    if (!this.disposing) {
      this.disposing = (async () => {
        const all = [...this.live, ...this.finished];
        await Promise.all([...all.map((h) => h.terminate()), ...[...this.terminals].map((t) => t.terminate())]);
        await Promise.all(all.map((h) => h.waitForExit()));
        this.live.clear();
        this.finished.clear();
        this.container?.dispose();
      })();
    }
    return this.disposing;
  }

  /** Moves a settled handle to the finished set, pruning gone trees in batches. */
  private retire(handle: LocalSubprocessHandle): void {
    this.live.delete(handle);
    if (handle.isTreeGone || this.disposing) return;
    if (handle.contained && handle.checkTreeGone()) return; // one small cgroup read, no /proc scan
    this.finished.add(handle);
    if (this.finished.size < PRUNE_BATCH) return;
    const procs = takeSnapshot();
    for (const h of this.finished) if (h.checkTreeGone(procs)) this.finished.delete(h);
  }
}
