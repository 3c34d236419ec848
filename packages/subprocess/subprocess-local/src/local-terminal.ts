/**
 * `spawnTerminal` for the local provider: a process on a node-pty pseudo-terminal, with
 * foreground facts and signals from /proc, and a terminate() that ends every session member.
 */
import { constants } from 'node:os';
import { PassThrough, type Readable } from 'node:stream';
import { DshError } from '@dsh/core';
import {
  FOREGROUND_SIGNALS,
  type ForegroundFacts,
  type SubprocessTerminalHandle,
  type TerminalSpawnSpec,
} from '@dsh/subprocess';
import type { CgroupContainer } from './cgroup.js';
import { inspectForeground, ttyOf } from './foreground.js';
import { ProcessTree } from './process-tree.js';
import type { PtyModule, PtyProcess } from './pty-loader.js';
import { signalGroup } from './signals.js';
import type { TreeCgroup } from './tree-cgroup.js';
import type { TreeWatcher } from './tree-watcher.js';

/** After the top process exits, output that arrives within this quiet period still belongs to it. */
export const PTY_EXIT_QUIET_MS = 30;

/** Everything `LocalTerminalHandle.start` needs from the runtime. */
export interface TerminalStart {
  pty: PtyModule;
  program: string;
  env: Record<string, string>;
  watcher: TreeWatcher;
  container: CgroupContainer | null;
}

/** A live local terminal. */
export class LocalTerminalHandle implements SubprocessTerminalHandle {
  readonly output: Readable;
  readonly done: Promise<{ exitCode: number | null; signal: string | null }>;
  private readonly stream = new PassThrough({ encoding: 'utf8' });
  private readonly term: PtyProcess;
  private readonly tree: ProcessTree;
  /** The slave device (e.g. /dev/pts/3); learned lazily when node-pty does not tell it. */
  private tty: string | null;
  private exited = false;
  private terminating: Promise<void> | undefined;

  constructor(
    private readonly spec: TerminalSpawnSpec,
    private readonly start: TerminalStart,
  ) {
    this.output = this.stream;
    const { pty, program, env, container } = start;
    const launch = (): PtyProcess =>
      pty.spawn(program, spec.argv.slice(1), {
        name: env.TERM ?? 'xterm-256color',
        cols: spec.cols,
        rows: spec.rows,
        cwd: spec.cwd,
        env,
        encoding: 'utf8',
      });
    let group: TreeCgroup | null = container?.create() ?? null;
    if (group && container) {
      let started: { value: PtyProcess; contained: boolean };
      try {
        started = container.spawnInside(group, launch);
      } catch (error) {
        group.release();
        throw error;
      }
      this.term = started.value;
      if (!started.contained) {
        group.release();
        group = null;
      }
    } else this.term = launch();
    this.tree = new ProcessTree(this.term.pid, group);
    // node-pty knows the slave path; reading the child's fd 0 right after fork could race its set-up.
    const ptsPath = (this.term as { _pty?: unknown })._pty;
    this.tty = typeof ptsPath === 'string' && ptsPath.startsWith('/dev/') ? ptsPath : null;
    let lastData = Date.now();
    let held = false;
    this.term.onData((data) => {
      lastData = Date.now();
      // A reader that stops (an emulator behind, a channel backed up) stops the PTY: the program
      // then blocks on its writes, and an interrupt's flush of the terminal's queue has little to drop.
      if (!this.stream.write(data) && !held && !this.exited) {
        held = true;
        this.term.pause();
        this.stream.once('drain', () => {
          held = false;
          if (!this.exited) this.term.resume();
        });
      }
    });
    this.done = new Promise((resolve) => {
      this.term.onExit(({ exitCode, signal }) => {
        this.exited = true;
        const facts = { exitCode: signal ? null : exitCode, signal: signal ? signalName(signal) : null };
        // Output still queued when the top process exits belongs to it: wait for a quiet moment.
        const settle = (): void => {
          const quietFor = Date.now() - lastData;
          if (quietFor < PTY_EXIT_QUIET_MS) setTimeout(settle, PTY_EXIT_QUIET_MS - quietFor);
          else {
            this.stream.end();
            resolve(facts);
          }
        };
        settle();
      });
    });
  }

  get pid(): number {
    return this.term.pid;
  }

  write(text: string): void {
    if (typeof text !== 'string') throw new DshError('INVALID_ARGUMENT', 'terminal write needs a string.');
    if (!this.exited) this.term.write(text);
  }

  resize(cols: number, rows: number): void {
    for (const [field, v] of [
      ['cols', cols],
      ['rows', rows],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 1 || v > 10_000) {
        throw new DshError('INVALID_ARGUMENT', `terminal ${field} must be an integer in [1, 10000].`, {
          data: { field },
        });
      }
    }
    if (!this.exited) this.term.resize(cols, rows);
  }

  inspectForeground(): ForegroundFacts {
    this.tty ??= ttyOf(this.term.pid);
    return inspectForeground(this.term.pid, this.tty);
  }

  /** Signals the verified foreground group of this session (never a group ≤ 1, never outside the session). */
  signalForeground(signal: string): boolean {
    if (!FOREGROUND_SIGNALS.has(signal)) {
      throw new DshError('INVALID_ARGUMENT', `signalForeground accepts ${[...FOREGROUND_SIGNALS].join(', ')}.`, {
        data: { signal },
      });
    }
    if (this.exited) return false;
    const { foregroundPgid } = this.inspectForeground();
    if (foregroundPgid === null || foregroundPgid <= 1) return false;
    return signalGroup(foregroundPgid, signal as NodeJS.Signals);
  }

  /** Ends every member of the session (SIGHUP+SIGTERM, SIGKILL after graceMs) and waits for the top process. */
  terminate(): Promise<void> {
    this.terminating ??= this.end();
    return this.terminating;
  }

  private async end(): Promise<void> {
    const wait = (): Promise<void> => this.start.watcher.watch(this.tree).gone;
    if (this.tree.signal('SIGTERM', !this.exited)) {
      if (!this.exited) this.term.kill('SIGHUP');
      this.start.watcher.poke();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<'grace'>((r) => {
        timer = setTimeout(() => r('grace'), this.spec.graceMs);
      });
      const first = await Promise.race([wait().then(() => 'gone' as const), grace]);
      clearTimeout(timer);
      if (first === 'grace') {
        this.tree.signal('SIGKILL', !this.exited);
        this.start.watcher.poke();
        await wait();
      }
    }
    await this.done;
  }
}

function signalName(n: number): string {
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? entry[0] : `SIG${n}`;
}
