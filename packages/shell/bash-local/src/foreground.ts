/**
 * Foreground runs: one fused deadline (timeout + caller abort) over bash's own lifetime; the
 * first to fire names the kill. Exit facts, timeout and abort are reported independently.
 */

import type { Sandbox } from '@dsh/sandbox';
import type { ShellExecResult, ShellExecSpec } from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { bashSpawnSpec, capture, confinementFor, sandboxFacts, startFailure } from './spawn-shell.js';

const emptyCapture = { text: '', truncated: false, totalBytes: 0, spillPath: null };

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
): Promise<ShellExecResult> {
  const confinement = confinementFor(spec, bash, sandbox);
  const started = Date.now();
  const base = { timeoutMs: spec.timeoutMs, startError: null };
  if (signal?.aborted) {
    const outcome = { exitCode: null, signal: null, timedOut: false, aborted: true };
    const facts = sandboxFacts(spec, sandbox, null, { exitCode: null, stdout: '', stderr: '' });
    return { ...outcome, ...base, sandbox: facts, stdout: emptyCapture, stderr: emptyCapture, durationMs: 0 };
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
    const handle = subprocess.spawn(bashSpawnSpec(spec, bash, kill.signal, confinement));
    await handle.exit;
    clearTimeout(timer); // the deadline covers bash's own lifetime, not the post-exit drain
    signal?.removeEventListener('abort', onAbort);
    const outcome = await handle.done;
    await handle.terminate(); // whatever bash left behind (e.g. `sleep 100 &`) ends here
    const startError = startFailure(outcome.error);
    const stdout = capture(handle.stdoutReader);
    const stderr = capture(handle.stderrReader);
    const evidence = { exitCode: outcome.exitCode, stdout: stdout.text, stderr: stderr.text };
    return {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: cause === 'timeout',
      aborted: cause === 'abort',
      stdout,
      stderr,
      durationMs: Date.now() - started,
      ...base,
      sandbox: sandboxFacts(spec, sandbox, confinement, evidence),
      startError,
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
