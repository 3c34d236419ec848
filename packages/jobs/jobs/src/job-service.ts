/**
 * `JobService` (ctx.jobs): ids, owner-only visibility, a per-owner queue, bounded retention.
 */
import { randomBytes } from 'node:crypto';
import { DshError, isOwner, type Owner } from '@dsh/core';
import { Job } from './job.js';
import {
  DEFAULT_MAX_QUEUED_PER_OWNER,
  DEFAULT_MAX_RUNNING_PER_OWNER,
  DEFAULT_RETAIN_COUNT,
  DEFAULT_RETAIN_MS,
} from './limits.js';
import type { JobId, JobInfo, JobOutput, JobRead, JobServiceOptions, JobSpec } from './types.js';

/** Told when a job ends: its owner and its final info (with `result`). */
export type JobEndListener = (owner: Owner, info: JobInfo) => void;

declare module '@dsh/core' {
  interface ServiceMap {
    /** Background jobs: identity, owners, queue. */
    jobs: JobService;
  }
}

function positive(value: number | undefined, fallback: number, field: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) {
    throw new DshError('INVALID_ARGUMENT', `job service option "${field}" must be an integer ≥ 1.`, {
      data: { field },
    });
  }
  return v;
}

/** Background jobs by owner. */
export class JobService {
  private readonly jobs = new Map<string, Job>();
  private readonly limits: Required<JobServiceOptions>;
  private disposing: Promise<void> | undefined;
  /** Set before any kill of dispose(), so no queued job starts during teardown. */
  private closing = false;
  private readonly endListeners = new Set<JobEndListener>();

  /** @throws DshError `INVALID_ARGUMENT` for a bad option. */
  constructor(options: JobServiceOptions = {}) {
    this.limits = {
      maxRunningPerOwner: positive(options.maxRunningPerOwner, DEFAULT_MAX_RUNNING_PER_OWNER, 'maxRunningPerOwner'),
      maxQueuedPerOwner: positive(options.maxQueuedPerOwner, DEFAULT_MAX_QUEUED_PER_OWNER, 'maxQueuedPerOwner'),
      retainCount: positive(options.retainCount, DEFAULT_RETAIN_COUNT, 'retainCount'),
      retainMs: positive(options.retainMs, DEFAULT_RETAIN_MS, 'retainMs'),
    };
  }

  /**
   * Registers a job for `owner`; it runs now or when a slot of that owner frees.
   * @throws DshError `INVALID_ARGUMENT`, `JOB_QUEUE_FULL`, `DISPOSED`.
   */
  start(owner: Owner, spec: JobSpec): JobId {
    this.checkStartable(owner, spec);
    const mine = this.ownedBy(owner);
    const queued = mine.filter((j) => j.state === 'queued').length;
    const running = mine.filter((j) => j.state === 'running').length;
    if (running >= this.limits.maxRunningPerOwner && queued >= this.limits.maxQueuedPerOwner) {
      throw new DshError(
        'JOB_QUEUE_FULL',
        `${running} jobs are running and ${queued} are queued; wait for some to finish or kill some (job_list, job_kill).`,
        { data: { running, queued } },
      );
    }
    const job = this.register(owner, spec);
    if (running < this.limits.maxRunningPerOwner) job.begin();
    return job.id;
  }

  /**
   * Registers work that is already running (e.g. a foreground command handed over at its yield
   * limit): it starts at once and never waits in the queue, since stopping it would lose it.
   * It holds a running slot like any job.
   * @throws DshError `INVALID_ARGUMENT`, `DISPOSED`.
   */
  adopt(owner: Owner, spec: JobSpec): JobId {
    this.checkStartable(owner, spec);
    const job = this.register(owner, spec);
    job.begin();
    return job.id;
  }

  /** Calls `listener` once for every job that ends, after its result is set. Returns the unsubscribe. */
  onEnd(listener: JobEndListener): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /**
   * New output of a job (reads never repeat) and where it is.
   * @throws DshError `JOB_NOT_FOUND` for an unknown, expired or foreign id.
   */
  output(owner: Owner, id: string): JobOutput {
    const job = this.find(owner, id);
    return { ...job.read(), info: job.info() };
  }

  /**
   * Where a job is, without reading (and so without consuming) its output.
   * @throws DshError `JOB_NOT_FOUND` for an unknown, expired or foreign id.
   */
  info(owner: Owner, id: string): JobInfo {
    return this.find(owner, id).info();
  }

  /**
   * Ends a job. True when this call ended it (queued or running); false once it had ended.
   * @throws DshError `JOB_NOT_FOUND` (as a rejection).
   */
  async kill(owner: Owner, id: string): Promise<boolean> {
    return this.find(owner, id).kill();
  }

  /**
   * Every owner's jobs, oldest first, with their owner: the view of a person supervising the
   * composition (dsh web). Agents see only their own, through `list`.
   */
  overview(): Array<{ owner: Owner; info: JobInfo }> {
    this.prune();
    return [...this.jobs.values()].map((j) => ({ owner: j.owner, info: j.info() }));
  }

  /**
   * An independent cursor over a job's output, from the oldest text still kept: reading it never
   * takes what `output` would hand the owner next. Null while the job is queued, or when its work
   * cannot be watched.
   * @throws DshError `JOB_NOT_FOUND` for an unknown, expired or foreign id.
   */
  watch(owner: Owner, id: string): (() => JobRead) | null {
    return this.find(owner, id).watch();
  }

  /** The owner's jobs, oldest first. Other owners' jobs are never listed. */
  list(owner: Owner): JobInfo[] {
    this.checkOwner(owner);
    this.prune();
    return this.ownedBy(owner).map((j) => j.info());
  }

  /**
   * Waits until the job ended, `timeoutMs` passed, or `signal` aborted; returns its info then.
   * @throws DshError `JOB_NOT_FOUND`.
   */
  async wait(owner: Owner, id: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<JobInfo> {
    const job = this.find(owner, id);
    const { signal, timeoutMs } = options;
    if (job.isEnded || signal?.aborted) return job.info();
    let timer: NodeJS.Timeout | undefined;
    let stop = (): void => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    if (timeoutMs !== undefined) timer = setTimeout(stop, timeoutMs);
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([job.ended, stopped]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
    return job.info();
  }

  /** Kills every job and waits for each to end. Idempotent. */
  dispose(): Promise<void> {
    this.closing = true;
    this.disposing ??= Promise.all([...this.jobs.values()].map((j) => j.kill())).then(() => undefined);
    return this.disposing;
  }

  private checkStartable(owner: Owner, spec: JobSpec): void {
    this.checkOwner(owner);
    if (this.closing) throw new DshError('DISPOSED', 'the job service has been disposed.');
    if (typeof spec?.title !== 'string' || typeof spec.run !== 'function') {
      throw new DshError('INVALID_ARGUMENT', 'a job needs { title: string, run: () => JobRun }.');
    }
    if (spec.startedAt !== undefined && !Number.isFinite(spec.startedAt)) {
      throw new DshError('INVALID_ARGUMENT', "a job's startedAt must be epoch milliseconds.", {
        data: { field: 'startedAt' },
      });
    }
  }

  private register(owner: Owner, spec: JobSpec): Job {
    let id: JobId;
    do id = `job-${randomBytes(4).toString('hex')}` as JobId;
    while (this.jobs.has(id));
    const job = new Job(id, owner, spec, (ended, heldSlot) => this.ended(ended, heldSlot));
    this.jobs.set(id, job);
    return job;
  }

  /** A job that held a running slot frees it for the owner's oldest queued job; listeners hear of the end. */
  private ended(job: Job, heldSlot: boolean): void {
    for (const listener of this.endListeners) {
      try {
        listener(job.owner, job.info());
      } catch {
        // a listener's failure must not break the job service
      }
    }
    if (heldSlot && !this.closing)
      this.ownedBy(job.owner)
        .find((j) => j.state === 'queued')
        ?.begin();
    this.prune();
  }

  private ownedBy(owner: Owner): Job[] {
    return [...this.jobs.values()].filter((j) => j.owner === owner);
  }

  private find(owner: Owner, id: string): Job {
    this.checkOwner(owner);
    this.prune();
    const job = typeof id === 'string' ? this.jobs.get(id) : undefined;
    if (!job || job.owner !== owner) {
      throw new DshError(
        'JOB_NOT_FOUND',
        `No job "${String(id)}" (unknown, expired, or not yours); call job_list to see your jobs.`,
        {
          data: { jobId: id },
        },
      );
    }
    return job;
  }

  /** Drops ended jobs past the retention time, and the oldest past the per-owner count. */
  private prune(): void {
    const now = Date.now();
    const endedByOwner = new Map<Owner, Job[]>();
    for (const job of this.jobs.values()) {
      if (!job.isEnded) continue;
      if (now - (job.endedAt as number) > this.limits.retainMs) {
        this.jobs.delete(job.id);
        continue;
      }
      const list = endedByOwner.get(job.owner) ?? [];
      list.push(job);
      endedByOwner.set(job.owner, list);
    }
    for (const list of endedByOwner.values()) {
      list.sort((a, b) => (a.endedAt as number) - (b.endedAt as number));
      for (const job of list.slice(0, Math.max(0, list.length - this.limits.retainCount))) this.jobs.delete(job.id);
    }
  }

  private checkOwner(owner: Owner): void {
    if (!isOwner(owner))
      throw new DshError('INVALID_ARGUMENT', 'jobs need an owner made by createAgent()/createOwner().');
  }
}
