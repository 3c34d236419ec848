/**
 * Helpers shared by every package's tests: polling with a generous deadline (never a fixed
 * sleep), process liveness from /proc, and temp directories removed after each test.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDshError } from '@dsh/core';
import { afterEach } from 'vitest';

/** Longest a test waits for a condition before failing. */
export const DEADLINE_MS = 20_000;

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

/**
 * Live `sleep ARG` processes whose argument ends in `token`, by argument (tests give each sleep
 * a unique number ending in their token, so they find their own processes and no others).
 */
/** The pid of a live child of this process whose argv `matches` (a channel dsh started), or undefined. */
export function childMatching(matches: (argv: string[]) => boolean): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0');
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'latin1').split(') ')[1]?.split(' ')[1]);
      if (ppid === process.pid && matches(argv)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

export function sleepers(token: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0');
    } catch {
      continue;
    }
    if (argv[0]?.endsWith('sleep') && argv[1]?.endsWith(token) && isAlive(Number(name)))
      found.set(argv[1], Number(name));
  }
  return found;
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
  const mark = (): void => {
    state.settled = true;
  };
  promise.then(mark, mark);
  return state;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp directory removed after the test. */
export function tempDir(prefix = 'dsh-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** The DshError code an async call fails with (`'none'` when it does not fail). */
export async function codeOf(call: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (error) {
    return isDshError(error) ? error.code : `not a DshError: ${String(error)}`;
  }
  return 'none';
}

/** The DshError code a synchronous call throws (`'none'` when it does not throw). */
export function codeOfSync(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    return isDshError(error) ? error.code : `not a DshError: ${String(error)}`;
  }
  return 'none';
}
