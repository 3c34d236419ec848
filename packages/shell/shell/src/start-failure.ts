/**
 * Which start failures are the infrastructure's (the shell program itself could not start),
 * as opposed to the command's own (e.g. a missing workdir). A foreground run rejects for the
 * former; every executor and caller shares this one mapping.
 */
import { DshError } from '@dsh/core';
import type { StartFailure } from './types.js';

/** Start failures that mean the shell itself could not run: `run` rejects with these. */
export const INFRASTRUCTURE_START_ERRORS: ReadonlySet<string> = new Set([
  'EXECUTABLE_NOT_FOUND',
  'NOT_EXECUTABLE',
  'SPAWN_FAILED',
  'RESOURCE_EXHAUSTED',
  'SANDBOX_UNAVAILABLE',
]);

/** The error a foreground run rejects with for `failure`, or null when the failure is the command's. */
export function infrastructureError(failure: StartFailure | null, mode?: string): DshError | null {
  if (!failure || !INFRASTRUCTURE_START_ERRORS.has(failure.code)) return null;
  if (failure.code === 'SANDBOX_UNAVAILABLE') {
    return new DshError(failure.code, failure.message, { data: { mode } });
  }
  return new DshError(failure.code, `bash could not be started: ${failure.message}`, { data: { ...failure } });
}
