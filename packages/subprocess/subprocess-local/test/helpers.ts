/**
 * Test helpers for the local provider: real processes, polling with generous deadlines,
 * and cleanup of every runtime and temp dir a test made.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpawnSpec } from '@dsh/subprocess';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { afterEach } from 'vitest';

/** Longest a test waits for a condition before failing. */
export const DEADLINE_MS = 20_000;

const runtimes: LocalSubprocessRuntime[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A runtime disposed after the test. */
export function runtime(options?: ConstructorParameters<typeof LocalSubprocessRuntime>[0]): LocalSubprocessRuntime {
  const r = new LocalSubprocessRuntime(options);
  runtimes.push(r);
  return r;
}

/** A temp directory removed after the test. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dsh-test-'));
  dirs.push(d);
  return d;
}

/** A complete spec collecting both streams, with the given fields replaced. */
export function spec(argv: string[], over: Partial<SpawnSpec> = {}): SpawnSpec {
  return {
    argv,
    cwd: tmpdir(),
    env: {},
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1024 * 1024 },
    stderr: { kind: 'collect', maxBytes: 1024 * 1024 },
    graceMs: 2_000,
    ...over,
  };
}

/** Polls `check` until it returns a truthy value, failing after {@link DEADLINE_MS}. */
export async function waitFor<T>(check: () => T | Promise<T>, what = 'condition'): Promise<NonNullable<Awaited<T>>> {
  const until = Date.now() + DEADLINE_MS;
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
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Pids printed one per line by a fixture (e.g. `echo $!`). */
export function pidsIn(text: string): number[] {
  return text
    .split('\n')
    .map((l) => Number.parseInt(l, 10))
    .filter((n) => Number.isInteger(n) && n > 1);
}

/** Whether `promise` has settled, observed without waiting. */
export function tracker<T>(promise: Promise<T>): { readonly settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}
