/**
 * A managed local process tree: start, collect, drain, terminate, and whole-tree waiting.
 */

import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { DshError, isDshError } from '@dsh/core';
import {
  childEnv,
  OutputCollector,
  type OutputDisposition,
  type OutputReader,
  type SpawnSpec,
  type SubprocessHandle,
  type SubprocessOutcome,
} from '@dsh/subprocess';
import type { CgroupContainer } from './cgroup.js';
import { withShadowedFds } from './child-fds.js';
import { ProcessTree, type ProcSnapshot } from './process-tree.js';
import { resolveExecutableSync } from './resolve-executable.js';
import type { TreeCgroup } from './tree-cgroup.js';
import type { TreeWait, TreeWatcher } from './tree-watcher.js';

type StartError = { code: string; message: string };

const noop = (): void => undefined;

function startErrorOf(error: unknown): StartError {
  if (isDshError(error)) return { code: error.code, message: error.message };
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOENT') return { code: 'EXECUTABLE_NOT_FOUND', message };
  if (code === 'EACCES') return { code: 'NOT_EXECUTABLE', message };
  if (code === 'E2BIG') {
    return {
      code: 'ARGUMENTS_TOO_LONG',
      message: `the arguments and environment are longer than the system allows (E2BIG: one argument under 128 KiB, all of them and the environment under the ARG_MAX of about 2 MiB); pass large data on stdin or in a file`,
    };
  }
  if (code === 'EMFILE' || code === 'ENFILE' || code === 'EAGAIN' || code === 'ENOMEM') {
    // The host is out of descriptors, processes or memory: nothing is wrong with the program.
    return {
      code: 'RESOURCE_EXHAUSTED',
      message: `the host could not start another process (${code}: ${message}); end idle jobs or terminals, or raise the limit (ulimit -n / -u), then retry`,
    };
  }
  return { code: 'SPAWN_FAILED', message };
}

/**
 * Checks a working directory exists and can be entered.
 * @throws DshError `CWD_NOT_FOUND`, `CWD_NOT_ACCESSIBLE`.
 */
export function checkCwd(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // missing: reported below
  }
  if (!isDir) {
    throw new DshError('CWD_NOT_FOUND', `working directory ${cwd} does not exist or is not a directory.`, {
      data: { cwd },
    });
  }
  try {
    accessSync(cwd, constants.X_OK);
  } catch {
    throw new DshError(
      'CWD_NOT_ACCESSIBLE',
      `working directory ${cwd} exists but cannot be entered (no search permission).`,
      {
        data: { cwd },
      },
    );
  }
}

function stdioFor(d: OutputDisposition): 'pipe' | 'inherit' {
  return d.kind === 'inherit' ? 'inherit' : 'pipe';
}

function collectorFor(d: OutputDisposition, label: string): OutputCollector | null {
  return d.kind === 'collect' ? new OutputCollector({ maxBytes: d.maxBytes, spill: d.spill, label }) : null;
}

/** Resolves when `stream` ends, closes or fails. */
function endOf(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.readableEnded || stream.destroyed) return resolve();
    stream.once('end', resolve).once('close', resolve).once('error', resolve);
  });
}

/** The local provider's process handle. */
export class LocalSubprocessHandle implements SubprocessHandle {
  readonly stdin: Writable | null = null;
  readonly stdout: Readable | null = null;
  readonly stderr: Readable | null = null;
  readonly stdoutReader: OutputReader | null;
  readonly stderrReader: OutputReader | null;
  readonly done: Promise<SubprocessOutcome>;
  readonly exit: Promise<SubprocessOutcome>;
  private resolveExit!: (outcome: SubprocessOutcome) => void;
  private readonly collectors: OutputCollector[] = [];
  private readonly collectorOf = new Map<Readable, OutputCollector>();
  private child: ChildProcess | undefined;
  private tree: ProcessTree | undefined;
  private childExited = false;
  private terminating: Promise<void> | undefined;
  private resolveExited!: () => void;
  private readonly exited = new Promise<void>((r) => {
    this.resolveExited = r;
  });

  constructor(
    private readonly spec: SpawnSpec,
    private readonly watcher: TreeWatcher,
    private readonly parentEnv: NodeJS.ProcessEnv = process.env,
    private readonly container: CgroupContainer | null = null,
  ) {
    const out = collectorFor(spec.stdout, 'stdout');
    const err = collectorFor(spec.stderr, 'stderr');
    this.stdoutReader = out;
    this.stderrReader = err;
    for (const c of [out, err]) if (c) this.collectors.push(c);
    this.exit = new Promise((r) => {
      this.resolveExit = r;
    });
    let outcome: Promise<SubprocessOutcome>;
    try {
      outcome = this.start(out, err);
    } catch (error) {
      outcome = Promise.resolve(this.failStart(startErrorOf(error)));
    }
    this.done = outcome;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(out: OutputCollector | null, err: OutputCollector | null): Promise<SubprocessOutcome> {
    const { spec } = this;
    if (spec.signal?.aborted) throw new DshError('ABORTED', 'the spawn was aborted before the program started.');
    checkCwd(spec.cwd);
    const env = childEnv(spec.env, this.parentEnv);
    const program = resolveExecutableSync(spec.argv[0] as string, env);
    const stdio: StdioOptions = withShadowedFds([
      spec.stdin.kind === 'ignore' ? 'ignore' : 'pipe',
      stdioFor(spec.stdout),
      stdioFor(spec.stderr),
    ]);
    const launch = (): ChildProcess =>
      spawn(program, spec.argv.slice(1), {
        cwd: spec.cwd,
        env,
        stdio,
        detached: true,
        argv0: spec.argv[0],
        windowsHide: true,
      });
    let group: TreeCgroup | null = this.container?.create() ?? null;
    let child: ChildProcess;
    if (group && this.container) {
      let started: { value: ChildProcess; contained: boolean };
      try {
        started = this.container.spawnInside(group, launch);
      } catch (error) {
        group.release(); // Node throws synchronously for some spawn errors (E2BIG, EINVAL, …)
        throw error;
      }
      child = started.value;
      if (!started.contained) {
        group.release();
        group = null;
      }
    } else {
      child = launch();
    }
    this.child = child;
    if (child.pid !== undefined) this.tree = new ProcessTree(child.pid, group);
    else group?.release();
    // Errors on pipes we own (EPIPE when the child stops reading) must never crash the host.
    for (const s of [child.stdin, child.stdout, child.stderr]) s?.on('error', noop);
    if (spec.stdin.kind === 'pipe') (this as { stdin: Writable | null }).stdin = child.stdin;
    if (spec.stdin.kind === 'bytes') child.stdin?.end(spec.stdin.data);
    if (spec.stdout.kind === 'pipe') (this as { stdout: Readable | null }).stdout = child.stdout;
    if (spec.stderr.kind === 'pipe') (this as { stderr: Readable | null }).stderr = child.stderr;
    const drained: Readable[] = [];
    for (const [stream, collector] of [
      [child.stdout, out],
      [child.stderr, err],
    ] as const) {
      if (!stream || !collector) continue;
      stream.on('data', (chunk: Buffer) => collector.push(chunk));
      this.collectorOf.set(stream, collector);
      void endOf(stream).then(() => collector.finish());
      drained.push(stream);
    }
    const onAbort = (): void => void this.terminate();
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise<SubprocessOutcome>((resolve) => {
      let settled = false;
      child.on('error', (error) => {
        if (settled || child.pid !== undefined) return; // after a start, 'error' concerns signals or pipes
        settled = true;
        spec.signal?.removeEventListener('abort', onAbort);
        resolve(this.failStart(startErrorOf(error)));
      });
      child.once('exit', (code, signal) => {
        if (settled) return;
        settled = true;
        this.childExited = true;
        this.resolveExited();
        this.resolveExit({ exitCode: code, signal, error: null });
        // Abort still means terminate() while anything of the tree lives; let go once it is gone.
        if (spec.signal && this.tree) {
          const tree = this.tree;
          void this.watcher.watch(tree).gone.then(() => spec.signal?.removeEventListener('abort', onAbort));
        } else spec.signal?.removeEventListener('abort', onAbort);
        void this.drain(drained).then(() => resolve({ exitCode: code, signal, error: null }));
      });
    });
  }

  /** After exit, waits for collected streams to end, at most graceMs; a grandchild holding a pipe is cut off. */
  private async drain(streams: Readable[]): Promise<void> {
    const pending = streams.filter((s) => !s.readableEnded && !s.destroyed);
    if (pending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => {
        timer = setTimeout(r, this.spec.graceMs);
      });
      await Promise.race([Promise.all(pending.map(endOf)), grace]);
      clearTimeout(timer);
      for (const s of pending) {
        if (s.readableEnded) continue;
        s.destroy();
        this.collectorOf.get(s)?.finish({ cutOff: true });
      }
    }
    for (const c of this.collectors) c.finish();
  }

  private failStart(error: StartError): SubprocessOutcome {
    this.tree?.markGone();
    this.childExited = true;
    this.resolveExited();
    for (const c of this.collectors) c.finish();
    const self = this as { stdin: Writable | null; stdout: Readable | null; stderr: Readable | null };
    // Stand-ins so pipe consumers see EOF instead of a null they did not plan for.
    if (this.spec.stdin.kind === 'pipe') self.stdin = new Writable({ write: (_c, _e, cb) => cb() });
    if (this.spec.stdout.kind === 'pipe') self.stdout = Readable.from([]);
    if (this.spec.stderr.kind === 'pipe') self.stderr = Readable.from([]);
    const outcome = { exitCode: null, signal: null, error };
    this.resolveExit(outcome);
    return outcome;
  }

  /** True once the tree has been observed gone (or never started); no signal is ever sent after that. */
  get isTreeGone(): boolean {
    return this.tree?.isGone ?? this.childExited;
  }

  /** Checks (with a shared snapshot) whether the tree is gone now. */
  checkTreeGone(procs?: ProcSnapshot): boolean {
    return this.tree ? this.tree.checkGone(procs) : this.childExited;
  }

  /** True when the tree has its own cgroup, so {@link checkTreeGone} needs no snapshot. */
  get contained(): boolean {
    return this.tree?.contained ?? false;
  }

  terminate(): Promise<void> {
    if (!this.terminating) this.terminating = this.terminateTree();
    return this.terminating;
  }

  async endTree(): Promise<number> {
    const alive = this.tree && !this.isTreeGone ? (this.tree.memberCount() ?? 0) : 0;
    await this.terminate();
    return alive;
  }

  private async terminateTree(): Promise<void> {
    const tree = this.tree;
    if (!tree?.signal('SIGTERM', !this.childExited)) return;
    this.watcher.poke();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace'>((r) => {
      timer = setTimeout(() => r('grace'), this.spec.graceMs);
    });
    const first = await Promise.race([this.waitForExit().then(() => 'gone' as const), graceOver]);
    clearTimeout(timer);
    if (first === 'gone') return;
    tree.signal('SIGKILL', !this.childExited);
    this.watcher.poke();
    await this.waitForExit();
  }

  async waitForExit(signal?: AbortSignal): Promise<void> {
    const aborted = (): DshError => new DshError('ABORTED', 'waitForExit was aborted before the tree exited.');
    if (signal?.aborted) throw aborted();
    if (this.isTreeGone) return;
    let wait: TreeWait | undefined;
    const gone = (async () => {
      await this.exited;
      if (!this.tree || signal?.aborted) return;
      wait = this.watcher.watch(this.tree);
      await wait.gone;
    })();
    if (!signal) return gone;
    let onAbort = noop;
    const abort = new Promise<never>((_, reject) => {
      onAbort = () => {
        wait?.release(); // stop polling for this waiter
        reject(aborted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([gone, abort]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}
