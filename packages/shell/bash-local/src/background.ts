/**
 * Background runs: a `ShellProcess` with no id and no owner, incremental reads that never
 * repeat, an idempotent kill, and a `done` that settles exactly once and never rejects.
 */

import { isDshError } from '@dsh/core';
import type { Confinement, Sandbox } from '@dsh/sandbox';
import type { ProcessRead, ShellExecSpec, ShellProcess, ShellProcessOutcome, StartFailure } from '@dsh/shell';
import type { OutputReader, SubprocessHandle, SubprocessRuntime } from '@dsh/subprocess';
import { bashSpawnSpec, capture, confinementFor, sandboxFacts } from './spawn-shell.js';

/** Opening and closing lines of a stderr section in incremental reads. */
export const STDERR_OPEN = '[stderr]';
export const STDERR_CLOSE = '[/stderr]';

/** A cursor over one collected stream that hands out only what is new. */
class Cursor {
  private offset = 0;
  constructor(private readonly reader: OutputReader | null) {}

  next(): { text: string; lossy: boolean; spillPath: string | null } {
    if (!this.reader) return { text: '', lossy: false, spillPath: null };
    const read = this.reader.read(this.offset);
    this.offset = read.nextOffset;
    return { text: read.text, lossy: read.lossy, spillPath: read.spillPath };
  }
}

function stderrSection(text: string): string {
  return `${STDERR_OPEN}\n${text}${text.endsWith('\n') ? '' : '\n'}${STDERR_CLOSE}\n`;
}

/** The local background process. */
export class LocalShellProcess implements ShellProcess {
  readonly done: Promise<ShellProcessOutcome>;
  private readonly handle: SubprocessHandle;
  private readonly stdout: Cursor;
  private readonly stderr: Cursor;
  private readonly kill$ = new AbortController();
  private settled = false;
  private exited = false;
  private killed = false;
  private killing: Promise<boolean> | undefined;
  private pendingError: string | null = null;

  private readonly confinement: Confinement | null;
  /** Set when the run could not even be confined: it settles as failed with this error. */
  private readonly refused: StartFailure | null;

  constructor(
    subprocess: SubprocessRuntime,
    private readonly spec: ShellExecSpec,
    bash: string,
    private readonly sandbox: Sandbox | undefined,
  ) {
    const started = Date.now();
    let confinement: Confinement | null = null;
    let refused: StartFailure | null = null;
    try {
      confinement = confinementFor(spec, bash, sandbox);
    } catch (error) {
      if (!isDshError(error, 'SANDBOX_UNAVAILABLE')) throw error;
      refused = { code: error.code, message: error.message };
    }
    this.confinement = confinement;
    this.refused = refused;
    // A refused run starts nothing: `true` stands in, so the settle path is the same as any failure.
    const spawnSpec = bashSpawnSpec(spec, bash, this.kill$.signal, confinement);
    this.handle = subprocess.spawn(refused ? { ...spawnSpec, argv: ['true'] } : spawnSpec);
    void this.handle.exit.then(() => {
      this.exited = true;
    });
    this.stdout = new Cursor(this.handle.stdoutReader);
    this.stderr = new Cursor(this.handle.stderrReader);
    this.done = this.settle(started);
  }

  get pid(): number | undefined {
    return this.handle.pid;
  }

  private async settle(started: number): Promise<ShellProcessOutcome> {
    const outcome = await this.handle.done;
    await this.handle.terminate(); // what the command left running ends with it
    const startError: StartFailure | null = this.refused ?? (outcome.error ? { ...outcome.error } : null);
    if (startError) this.pendingError = `failed to start (${startError.code}): ${startError.message}`;
    this.settled = true;
    const stderr = capture(this.handle.stderrReader);
    const stdout = capture(this.handle.stdoutReader);
    const evidence = { exitCode: outcome.exitCode, stdout: stdout.text, stderr: stderr.text };
    return {
      exitCode: this.refused ? null : outcome.exitCode,
      signal: this.refused ? null : outcome.signal,
      killed: this.killed,
      startError,
      stdout,
      stderr: startError ? { ...stderr, text: `${stderr.text}${this.pendingError}\n` } : stderr,
      durationMs: Date.now() - started,
      sandbox: sandboxFacts(this.spec, this.sandbox, this.confinement, evidence),
    };
  }

  readOutput(): ProcessRead {
    const out = this.stdout.next();
    const err = this.stderr.next();
    let errText = err.text;
    if (this.pendingError !== null && this.settled) {
      errText += `${errText === '' || errText.endsWith('\n') ? '' : '\n'}${this.pendingError}\n`;
      this.pendingError = null;
    }
    let text = out.text;
    if (errText !== '') text += `${text === '' || text.endsWith('\n') ? '' : '\n'}${stderrSection(errText)}`;
    return { text, lossy: out.lossy || err.lossy, spillPaths: { stdout: out.spillPath, stderr: err.spillPath } };
  }

  /**
   * Ends the tree. True when bash itself was still running (the outcome then says `killed`);
   * false once settled, or when bash had already exited by itself (its leftovers are still ended).
   */
  kill(): Promise<boolean> {
    if (this.settled) return Promise.resolve(false);
    if (this.killing) return this.killing;
    this.killing = (async () => {
      const running = !this.exited;
      if (running) this.killed = true;
      this.kill$.abort();
      await this.handle.terminate();
      await this.done;
      return running;
    })();
    return this.killing;
  }
}
