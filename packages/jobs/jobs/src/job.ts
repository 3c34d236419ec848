/**
 * One job's record: its state machine (queued → running → succeeded | failed | killed),
 * its output cursor (reads never repeat), and the way it ends.
 */
import type { Owner } from '@dsh/core';
import type { JobId, JobInfo, JobRead, JobResult, JobRun, JobSpec, JobState } from './types.js';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A job and its lifecycle. */
export class Job {
  state: JobState = 'queued';
  readonly createdAt: number;
  startedAt: number | null = null;
  endedAt: number | null = null;
  result: JobResult | null = null;
  private run: JobRun | null = null;
  private resolveEnded!: () => void;
  /** Resolves once the job has ended, whatever the way. */
  readonly ended = new Promise<void>((r) => {
    this.resolveEnded = r;
  });

  constructor(
    readonly id: JobId,
    readonly owner: Owner,
    private readonly spec: JobSpec,
    /** Told when the job ends; `heldSlot` is false for a job that ended while still queued. */
    private readonly onEnd: (job: Job, heldSlot: boolean) => void,
  ) {
    this.createdAt = Math.min(spec.startedAt ?? Date.now(), Date.now());
  }

  get title(): string {
    return this.spec.title;
  }

  get isEnded(): boolean {
    return this.endedAt !== null;
  }

  info(): JobInfo {
    const { id, title, state, createdAt, startedAt, endedAt, result } = this;
    return { id, title, state, createdAt, startedAt, endedAt, result };
  }

  /** Starts the work (called when a queue slot frees). */
  begin(): void {
    if (this.state !== 'queued') return;
    this.state = 'running';
    this.startedAt = Math.min(this.spec.startedAt ?? Date.now(), Date.now());
    try {
      this.run = this.spec.run();
    } catch (error) {
      this.end('failed', {
        ok: false,
        text: `the job could not start: ${errorText(error)}`,
        data: { error: errorText(error) },
      });
      return;
    }
    this.run.done.then(
      (result) => this.end(result.cancelled ? 'killed' : result.ok ? 'succeeded' : 'failed', result),
      (error) =>
        this.end('failed', {
          ok: false,
          text: `the job failed: ${errorText(error)}`,
          data: { error: errorText(error) },
        }),
    );
  }

  /** New output since the last read. */
  read(): JobRead {
    if (!this.run) return { text: '', lossy: false };
    try {
      return this.run.readOutput();
    } catch (error) {
      return { text: `[output unavailable: ${errorText(error)}]\n`, lossy: true };
    }
  }

  /** An independent cursor over the output (see `JobRun.watch`); null while queued or when the work cannot be watched. */
  watch(): (() => JobRead) | null {
    return this.run?.watch?.() ?? null;
  }

  /**
   * Ends the job: a queued one never starts, a running one is cancelled. True when this call
   * ended it; false once it had ended (including when it finished by itself while being killed).
   */
  async kill(): Promise<boolean> {
    if (this.isEnded) return false;
    if (this.state === 'queued') {
      this.end('killed', { ok: false, text: 'killed before it started', data: {}, cancelled: true });
      return true;
    }
    let ended = false;
    try {
      ended = (await this.run?.cancel()) === true;
    } catch {
      // the work's own failure to cancel is reported by its done
    }
    await this.ended;
    return ended;
  }

  private end(state: JobState, result: JobResult): void {
    if (this.isEnded) return;
    const heldSlot = this.state === 'running';
    this.state = state;
    this.result = result;
    this.endedAt = Date.now();
    this.resolveEnded();
    this.onEnd(this, heldSlot);
  }
}
