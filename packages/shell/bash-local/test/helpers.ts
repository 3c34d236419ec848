/**
 * Test helpers: a real subprocess runtime and executor per test, cleaned up afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalBashConfig, LocalBashExecutor } from '@dsh/bash-local';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { afterEach } from 'vitest';

const runtimes: LocalSubprocessRuntime[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp directory removed after the test. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dsh-bash-test-'));
  dirs.push(d);
  return d;
}

/** An executor over a fresh runtime, spilling into a temp dir unless the config says otherwise. */
export function executor(config: LocalBashConfig = {}): LocalBashExecutor {
  const subprocess = new LocalSubprocessRuntime();
  runtimes.push(subprocess);
  return new LocalBashExecutor({ subprocess }, { spillDir: join(tempDir(), 'spill'), graceMs: 300, ...config });
}

/** Polls until `check` is truthy, failing after 20 s. */
export async function waitFor<T>(check: () => T | Promise<T>, what = 'condition'): Promise<NonNullable<Awaited<T>>> {
  const until = Date.now() + 20_000;
  let delay = 5;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<Awaited<T>>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
}

/** True when `pid` is a live (non-zombie) process. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
