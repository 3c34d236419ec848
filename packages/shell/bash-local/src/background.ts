/**
 * A started bash: a `ShellProcess` with no id and no owner, incremental reads that never repeat,
 * an idempotent kill, a `done` that settles exactly once and never rejects, and — when started
 * with a deadline — the fused deadline of a foreground run (the spec's timeout and the caller's
 * signal; whichever fires first names the kill). Foreground `run` is this with a deadline.
 */

import { isDshError } from '@dsh/core';
import type { Sandbox, World } from '@dsh/sandbox';
import type {
  ProcessRead,
  ShellExecSpec,
  ShellProcess,
  ShellProcessOutcome,
  ShellStartOptions,
  StartFailure,
} from '@dsh/shell';
import type { OutputReader, SubprocessHandle, SubprocessRuntime } from '@dsh/subprocess';
import { bashSpawnSpec, capture, placeOf, sandboxFacts } from './spawn-shell.js';

/** Opening and closing lines of a stderr section in incremental reads. */
export const STDERR_OPEN = '[stderr]';
export const STDERR_CLOSE = '[/stderr]';

const EMPTY = { text: '', truncated: false, totalBytes: 0, spillPath: null };

/** A cursor over one collected stream that hands out only what is new, and counts what it missed. */
class Cursor {
  private offset = 0;
  constructor(private readonly reader: OutputReader | null) {}

  next(): { text: string; lossy: boolean; skipped: number; spillPath: string | null } {
    if (!this.reader) return { text: '', lossy: false, skipped: 0, spillPath: null };
    const from = this.offset;
    const read = this.reader.read(from);
    this.offset = read.nextOffset;
    // A lossy read starts at the kept tail: what lies between the old offset and it was dropped.
    const skipped = read.lossy ? Math.max(0, read.nextOffset - Buffer.byteLength(read.text) - from) : 0;
    return { text: read.text, lossy: read.lossy, skipped, spillPath: read.spillPath };
  }
}

function stderrSection(text: string): string {
  return `${STDERR_OPEN}\n${text}${text.endsWith('\n') ? '' : '\n'}${STDERR_CLOSE}\n`;
}

type CursorRead = ReturnType<Cursor['next']>;

/** One incremental read: stdout, then stderr (with `note`, a start failure, at its end) as a section. */
function combined(out: CursorRead, err: CursorRead, note: string): ProcessRead {
  let errText = err.text;
  if (note !== '') errText += `${errText === '' || errText.endsWith('\n') ? '' : '\n'}${note}`;
  let text = out.text;
  if (errText !== '') text += `${text === '' || text.endsWith('\n') ? '' : '\n'}${stderrSection(errText)}`;
  return {
    text,
    lossy: out.lossy || err.lossy,
    skipped: out.skipped + err.skipped,
    spillPaths: { stdout: out.spillPath, stderr: err.spillPath },
  };
}

/** The local started process. */
export class LocalShellProcess implements ShellProcess {
  readonly done: Promise<ShellProcessOutcome>;
  /** Null when nothing was started: the start was refused (no fence) or aborted beforehand. */
  private readonly handle: SubprocessHandle | null;
  private readonly stdout: Cursor;
  private readonly stderr: Cursor;
  private readonly kill$ = new AbortController();
  private settled = false;
  private exited = false;
  private killed = false;
  private cause: 'timeout' | 'abort' | null = null;
  private killing: Promise<boolean> | undefined;
  private pendingError: string | null = null;
  private readonly world: World | null = null;
  /** The world's limit counters when this run started (a limit hit is told by their growth). */
  private readonly limitsBefore: { pids: number; oom: number } | null = null;
  /** The world's proxy refusals when this run started (what it refused is told by their growth). */
  private readonly refusalsBefore: number | null = null;
  /** Set when the run could not even be confined: it settles as failed with this error. */
  private readonly refused: StartFailure | null = null;
  private readonly deadline: boolean;

  constructor(
    host: SubprocessRuntime,
    private readonly spec: ShellExecSpec,
    bash: string,
    private readonly sandbox: Sandbox | undefined,
    options: ShellStartOptions = {},
    managedEnv: Readonly<Record<string, string>> = {},
  ) {
    const started = Date.now();
    this.deadline = options.deadline === true;
    let runtime = host;
    try {
      const place = placeOf(spec, sandbox, host);
      runtime = place.runtime;
      this.world = place.world;
      this.limitsBefore = place.world?.limitCounters?.() ?? null;
      this.refusalsBefore = place.world?.networkRefusals?.() ?? null;
    } catch (error) {
      if (!isDshError(error, 'SANDBOX_UNAVAILABLE')) throw error;
      this.refused = { code: error.code, message: error.message };
    }
    const signal = options.signal;
    if (signal?.aborted) this.cause = 'abort';
    this.handle =
      this.refused || this.cause ? null : runtime.spawn(bashSpawnSpec(spec, bash, this.kill$.signal, managedEnv));
    this.stdout = new Cursor(this.handle?.stdoutReader ?? null);
    this.stderr = new Cursor(this.handle?.stderrReader ?? null);
    const handle = this.handle;
    if (!handle) {
      this.exited = true;
      this.done = Promise.resolve(this.outcome(started, null, 0));
      this.settled = true;
      return;
    }
    const fire = (why: 'timeout' | 'abort'): void => {
      if (this.cause !== null || this.exited) return;
      this.cause = why;
      this.kill$.abort();
    };
    const timer = this.deadline ? setTimeout(() => fire('timeout'), spec.timeoutMs) : undefined;
    const onAbort = (): void => fire('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    // The deadline covers bash's own lifetime, not the post-exit drain.
    void handle.exit.then(() => {
      this.exited = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
    this.done = this.settle(started, handle);
  }

  get pid(): number | undefined {
    return this.handle?.pid;
  }

  private async settle(started: number, handle: SubprocessHandle): Promise<ShellProcessOutcome> {
    const outcome = await handle.done;
    const leftover = await handle.endTree(); // what the command left running ends with it
    const result = this.outcome(started, outcome, leftover);
    this.settled = true;
    return result;
  }

  /** The outcome; `exit` is null when nothing was started. */
  private outcome(
    started: number,
    exit: { exitCode: number | null; signal: string | null; error: StartFailure | null } | null,
    leftover: number,
  ): ShellProcessOutcome {
    const startError: StartFailure | null = this.refused ?? (exit?.error ? { ...exit.error } : null);
    if (startError) this.pendingError = `failed to start (${startError.code}): ${startError.message}`;
    const stdout = this.handle ? capture(this.handle.stdoutReader) : EMPTY;
    const stderr = this.handle ? capture(this.handle.stderrReader) : EMPTY;
    const evidence = {
      exitCode: exit?.exitCode ?? null,
      stdout: stdout.text,
      stderr: stderr.text,
      startError: exit?.error?.code ?? null,
      signal: exit?.signal ?? null,
      limitsBefore: this.limitsBefore,
      refusalsBefore: this.refusalsBefore,
    };
    // A background reader learns of a failed start from stderr; a deadline run reports it as a marker.
    const shownStderr =
      startError && !this.deadline ? { ...stderr, text: `${stderr.text}${this.pendingError}\n` } : stderr;
    return {
      exitCode: exit?.exitCode ?? null,
      signal: exit?.signal ?? null,
      killed: this.killed,
      timedOut: this.cause === 'timeout',
      aborted: this.cause === 'abort',
      timeoutMs: this.deadline ? this.spec.timeoutMs : null,
      startError,
      stdout,
      stderr: shownStderr,
      durationMs: Date.now() - started,
      sandbox: sandboxFacts(this.spec, this.sandbox, this.world, evidence),
      leftover,
    };
  }

  readOutput(): ProcessRead {
    let note = '';
    if (this.pendingError !== null && this.settled) {
      note = `${this.pendingError}\n`;
      this.pendingError = null;
    }
    return combined(this.stdout.next(), this.stderr.next(), note);
  }

  watchOutput(): () => ProcessRead {
    const stdout = new Cursor(this.handle?.stdoutReader ?? null);
    const stderr = new Cursor(this.handle?.stderrReader ?? null);
    return () => combined(stdout.next(), stderr.next(), '');
  }

  /**
   * Ends the tree. True when bash itself was still running (the outcome then says `killed`);
   * false once settled, or when bash had already exited by itself (its leftovers are still ended).
   */
  kill(): Promise<boolean> {
    const handle = this.handle;
    if (this.settled || !handle) return Promise.resolve(false);
    if (this.killing) return this.killing;
    this.killing = (async () => {
      const running = !this.exited && this.cause === null;
      if (running) this.killed = true;
      this.kill$.abort();
      await handle.terminate();
      await this.done;
      return running;
    })();
    return this.killing;
  }
}
