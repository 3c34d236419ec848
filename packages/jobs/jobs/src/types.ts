/**
 * The ctx.jobs vocabulary: background work gets identity, an owner and a lifecycle here.
 */

/** Opaque job id minted by the service. */
export type JobId = string & { readonly __brand: 'JobId' };

/** Where a job is in its life. */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'killed';

/** One incremental read of a job's output. */
export interface JobRead {
  /** Only what is new since the previous read. */
  text: string;
  /** Some output since the previous read is no longer in memory. */
  lossy: boolean;
  /** Provider facts (e.g. spill paths). */
  data?: Record<string, unknown>;
}

/** How a job ended. */
export interface JobResult {
  /** True when the work succeeded (e.g. exit code 0). */
  ok: boolean;
  /** A final rendering for a reader (e.g. the exit markers). */
  text: string;
  /** Machine facts (exit_code, signal, …). */
  data: Record<string, unknown>;
  /** True when a cancel ended the work (the job is then `killed`); a natural end that raced a cancel is not. */
  cancelled?: boolean;
}

/** What a job's `run` starts: the live work. */
export interface JobRun {
  /** New output since the last call. */
  readOutput(): JobRead;
  /** Ends the work; resolves true when this call ended it, false when it had already ended by itself. */
  cancel(): Promise<boolean>;
  /**
   * A second, independent cursor over the output, from the oldest text still kept: reading it
   * never moves `readOutput`'s cursor (a person watching must not take the model's output).
   * Absent when the work cannot be watched.
   */
  watch?(): () => JobRead;
  /** Settles once when the work ends. A rejection marks the job failed. */
  readonly done: Promise<JobResult>;
}

/** What `start` needs. */
export interface JobSpec {
  /** Short human title (e.g. the command). */
  title: string;
  /** Starts the work; called when a queue slot is free. A throw marks the job failed. */
  run: () => JobRun;
  /** When the work really started, in epoch ms, for work adopted already running (its age counts from then). @default when the job begins */
  startedAt?: number;
}

/** A job as listed. */
export interface JobInfo {
  id: JobId;
  title: string;
  state: JobState;
  /** Epoch milliseconds. */
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** Set once the job ended. */
  result: JobResult | null;
}

/** One `output` call: new text plus where the job is. */
export interface JobOutput extends JobRead {
  info: JobInfo;
}

/** Limits of a `JobService`; every one has a default. */
export interface JobServiceOptions {
  /** Jobs of one owner running at once; more wait in a queue. @default 8 */
  maxRunningPerOwner?: number;
  /** Jobs of one owner waiting; past this `start` throws JOB_QUEUE_FULL. @default 64 */
  maxQueuedPerOwner?: number;
  /** Ended jobs kept per owner (oldest dropped first). @default 100 */
  retainCount?: number;
  /** How long an ended job stays visible, in ms. @default 3600000 */
  retainMs?: number;
}
