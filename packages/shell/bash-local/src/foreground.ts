/**
 * Foreground runs: one fused deadline (timeout + caller abort) over bash's own lifetime; the
 * first to fire names the kill. Exit facts, timeout and abort are reported independently.
 */

import type { ShellExecResult, ShellExecSpec } from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { assertRunnable, bashSpawnSpec, capture, startFailure } from './spawn-shell.js';

const emptyCapture = { text: '', truncated: false, totalBytes: 0, spillPath: null };

/**
 * Runs `spec` to completion and ends whatever it left running.
 * @throws DshError `SANDBOX_UNAVAILABLE`, or a start failure of bash itself (`EXECUTABLE_NOT_FOUND`, …).
 */
export async function runForeground(
  subprocess: SubprocessRuntime,
  spec: ShellExecSpec,
  bash: string,
  signal?: AbortSignal,
): Promise<ShellExecResult> {
  assertRunnable(spec);
  const started = Date.now();
  const base = { timeoutMs: spec.timeoutMs, sandbox: null, startError: null };
  if (signal?.aborted) {
    const outcome = { exitCode: null, signal: null, timedOut: false, aborted: true };
    return { ...outcome, ...base, stdout: emptyCapture, stderr: emptyCapture, durationMs: 0 };
  }
  const kill = new AbortController();
  let cause: 'timeout' | 'abort' | null = null;
  const fire = (why: 'timeout' | 'abort'): void => {
    if (cause !== null) return;
    cause = why;
    kill.abort();
  };
  const timer = setTimeout(() => fire('timeout'), spec.timeoutMs);
  const onAbort = (): void => fire('abort');
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const handle = subprocess.spawn(bashSpawnSpec(spec, bash, kill.signal));
    await handle.exit;
    clearTimeout(timer); // the deadline covers bash's own lifetime, not the post-exit drain
    signal?.removeEventListener('abort', onAbort);
    const outcome = await handle.done;
    await handle.terminate(); // whatever bash left behind (e.g. `sleep 100 &`) ends here
    const startError = startFailure(outcome.error);
    return {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: cause === 'timeout',
      aborted: cause === 'abort',
      stdout: capture(handle.stdoutReader),
      stderr: capture(handle.stderrReader),
      durationMs: Date.now() - started,
      ...base,
      startError,
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
