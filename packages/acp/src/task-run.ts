/**
 * One agent_task as it runs, apart from the call that started it: the call attached now (whose
 * approver decides the sub-agent's permission requests), and a permission request waiting for
 * the person. When the call's approver asks the person (an MCP client that elicits: the call
 * ends with `input_required`), the request is parked here and the turn waits; the retry that
 * brings the answer settles it and attaches to the same task. After a hand-over to a job there
 * is no call: requests go to the composition's approver, else they are rejected.
 */
import { type Approver, decide, type EscalationRequest, type Owner } from '@dsh/core';
import type { AgentTaskResult } from './session.js';
import type { RunningTask } from './task-job.js';

/**
 * How long a permission request asked of the person waits for the call that brings the answer;
 * then it is rejected and the task is cancelled (no call is left to report its end).
 */
export const PERMISSION_ANSWER_WAIT_MS = 10 * 60_000;

/** What the attached call gives the task. */
export interface AttachedCall {
  /** The call's approver. @default none */
  approve: Approver | undefined;
  /** Called when the person is being asked: the call must end now and come back with the answer. */
  asked(): void;
}

/** How a task is started: its turn, given the cancel signal, the live updates and the permission hook. */
export type StartTask = (
  signal: AbortSignal,
  onUpdate: (live: AgentTaskResult) => void,
  permit: (request: EscalationRequest) => Promise<boolean>,
) => Promise<AgentTaskResult>;

/** A running agent task. */
export class AgentTaskRun implements RunningTask {
  readonly done: Promise<AgentTaskResult>;
  /** When it began (epoch ms). */
  readonly startedAt = Date.now();
  /** The task's own deadline (timeout_ms) fired. */
  readonly deadline: AbortSignal;
  /** The request asked of the person, waiting for its answer. */
  parked: { request: EscalationRequest; settle(approved: boolean): void } | null = null;
  private latest: AgentTaskResult | null = null;
  private readonly kill = new AbortController();
  private call: AttachedCall | null = null;

  constructor(
    readonly owner: Owner,
    start: StartTask,
    timeoutMs: number,
    private readonly fallback: Approver | undefined,
    readonly render: RunningTask['render'],
    /** Called when a request is parked, and again (with false) when it is settled. */
    private readonly onParked: (run: AgentTaskRun, parked: boolean) => void,
  ) {
    this.deadline = AbortSignal.timeout(timeoutMs);
    this.done = start(
      AbortSignal.any([this.deadline, this.kill.signal]),
      (r) => {
        this.latest = r;
      },
      (request) => this.permit(request),
    );
    // A task that ends (cancelled, died) while a request waits leaves nothing parked.
    const unpark = (): void => this.parked?.settle(false);
    void this.done.then(unpark, unpark);
  }

  live(): AgentTaskResult | null {
    return this.latest;
  }

  cancel(): void {
    this.kill.abort();
  }

  /** `call` is the one waiting on this task now (null: none, e.g. it became a job). */
  attach(call: AttachedCall | null): void {
    this.call = call;
  }

  /** Answers the parked request. */
  settle(approved: boolean): void {
    this.parked?.settle(approved);
  }

  /** Decides one permission request of the sub-agent. */
  private async permit(request: EscalationRequest): Promise<boolean> {
    const call = this.call;
    const decision = await decide(call?.approve ?? this.fallback, request);
    if (!decision.pending) return decision.approved;
    if (!call || call !== this.call) return false; // no call is left to bring the answer back
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.parked?.settle(false);
        this.cancel();
      }, PERMISSION_ANSWER_WAIT_MS);
      timer.unref();
      this.parked = {
        request,
        settle: (approved) => {
          clearTimeout(timer);
          this.parked = null;
          this.onParked(this, false);
          resolve(approved);
        },
      };
      this.onParked(this, true);
      this.call = null;
      call.asked();
    });
  }
}
