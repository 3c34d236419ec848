/**
 * The ctx.shell service contract. `@dsh/bash-local` provides the local implementation.
 */
import type {} from '@dsh/core';
import type { ShellExecRequest, ShellExecResult, ShellExecSpec, ShellProcess, ShellStartOptions } from './types.js';

declare module '@dsh/core' {
  interface ServiceMap {
    /** One-shot bash commands with timeouts and honest results. */
    shell: ShellExecutor;
  }
}

/** Runs bash commands: resolve a request, then run it (foreground) or start it (background). */
export abstract class ShellExecutor {
  /**
   * Fills every field from configuration and clamps it (timeout ≤ the configured maximum).
   * @throws DshError `INVALID_ARGUMENT` naming the field for malformed input.
   */
  abstract resolve(request: ShellExecRequest): ShellExecSpec;

  /**
   * Runs in the foreground under one fused deadline (the timeout and `options.signal`).
   * Resolves with the facts; rejects only for infrastructure failure (e.g. no bash).
   * @throws DshError `SANDBOX_UNAVAILABLE` (rejection) when a confined mode has no fence.
   */
  abstract run(spec: ShellExecSpec, options?: { signal?: AbortSignal }): Promise<ShellExecResult>;

  /**
   * Starts and returns at once. Without `options.deadline` there is no executor timeout (a
   * background command); with it, the spec's deadline and `options.signal` apply as in `run`,
   * and a caller can still hand the running process over (e.g. to ctx.jobs). Never throws for a
   * failed start, a missing fence included: `done` settles with `startError` (and, without a
   * deadline, the error on stderr).
   */
  abstract start(spec: ShellExecSpec, options?: ShellStartOptions): ShellProcess;
}
