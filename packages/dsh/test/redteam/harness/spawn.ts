/**
 * Running programs on the host for the red-team suite: as root or as the suite's ordinary user,
 * with an explicit environment, a deadline that kills the whole process group, and polling with
 * a generous deadline instead of fixed sleeps.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { FenceUser } from './users.js';

/** What a finished program left. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the deadline killed it. */
  killed: boolean;
}

/** How to start a program. */
export interface SpawnOptions {
  /** Whose it is: root runs it directly, anyone else through runuser. */
  user: FenceUser;
  /** The whole environment (nothing is inherited). */
  env: Record<string, string>;
  cwd: string;
  /** Killed (its process group) after this long. @default 90 s */
  deadlineMs?: number;
  /** Bytes for stdin (then EOF). @default none, stdin at EOF */
  input?: string;
}

/** The argv that runs `argv` as `user` with exactly `env`. */
export function userArgv(user: FenceUser, env: Record<string, string>, argv: string[]): string[] {
  const withEnv = ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv];
  return user.root ? withEnv : ['runuser', '-u', user.name, '--', ...withEnv];
}

/** Kills a detached child's process group (it leads one), ignoring one already gone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!child.pid || child.pid <= 1) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

/** Starts `argv` (as `options.user`) in a process group of its own. */
export function start(argv: string[], options: SpawnOptions): ChildProcess {
  const [file, ...args] = userArgv(options.user, options.env, argv);
  return spawn(file as string, args, { cwd: options.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs `argv` to the end (or the deadline) and collects its output. */
export function run(argv: string[], options: SpawnOptions): Promise<Finished> {
  const child = start(argv, options);
  return collect(child, options.deadlineMs ?? 90_000, options.input);
}

/** Collects a started child's output until it exits; kills its group at the deadline. */
export function collect(child: ChildProcess, deadlineMs: number, input?: string): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  let killed = false;
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(input ?? '');
  const timer = setTimeout(() => {
    killed = true;
    killGroup(child);
  }, deadlineMs);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}`, killed });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(child); // anything it left in its group
      resolve({ code, signal, stdout, stderr, killed });
    });
  });
}

/** Longest the suite waits for a condition on the host. */
export const POLL_DEADLINE_MS = 30_000;

/**
 * Polls `check` until it returns a truthy value; returns undefined after `deadlineMs` (the
 * caller decides what a missed condition means).
 */
export async function poll<T>(
  check: () => T | Promise<T>,
  deadlineMs = POLL_DEADLINE_MS,
): Promise<NonNullable<T> | undefined> {
  const until = Date.now() + deadlineMs;
  let delay = 5;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) return undefined;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
}
