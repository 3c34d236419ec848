/**
 * Foreground runs: a started process with its deadline (timeout + caller abort), awaited. Exit
 * facts, timeout and abort are reported independently; only infrastructure failures reject.
 */
import type { Sandbox } from '@dsh/sandbox';
import { infrastructureError, type ShellExecResult, type ShellExecSpec } from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { LocalShellProcess } from './background.js';

/**
 * Runs `spec` to completion and ends whatever it left running.
 * @throws DshError `SANDBOX_UNAVAILABLE`, or a start failure of bash itself (`EXECUTABLE_NOT_FOUND`, …).
 */
export async function runForeground(
  subprocess: SubprocessRuntime,
  spec: ShellExecSpec,
  bash: string,
  signal: AbortSignal | undefined,
  sandbox: Sandbox | undefined,
  managedEnv: Readonly<Record<string, string>>,
): Promise<ShellExecResult> {
  const proc = new LocalShellProcess(subprocess, spec, bash, sandbox, { deadline: true, signal }, managedEnv);
  const outcome = await proc.done;
  const failure = outcome.startError;
  const infrastructure = infrastructureError(failure, spec.sandbox?.mode);
  if (infrastructure) throw infrastructure;
  return {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    durationMs: outcome.durationMs,
    timeoutMs: spec.timeoutMs,
    sandbox: outcome.sandbox,
    startError: failure,
    leftover: outcome.leftover,
  };
}
