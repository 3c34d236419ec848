/**
 * Reserving the first pids of a sandbox world for its machinery. The world's seccomp program
 * refuses signals and process control aimed at pids 1…N (bubblewrap's init, this server and its
 * threads: `kill` with the id of any thread of a process reaches the whole process), so no
 * command may ever get one of them. The server starts its thread pool (so its threads exist and
 * take the first pids), then uses up the pids left below N with short-lived forks of one shell.
 * Limits: a thread the server started later gets a pid above N and is not covered; after the pid
 * counter wraps (4 million forks in one world) commands can get pids of that range again, and
 * cannot be signalled by the other commands.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, stat } from 'node:fs';

/** The last pid handed out in this process's pid namespace, or null when it cannot be read. */
function lastPid(): number | null {
  try {
    return Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8').trim());
  } catch {
    return null;
  }
}

/** Starts the thread pool of this process (its first asynchronous file system call does). */
function startThreadPool(): Promise<void> {
  return new Promise((resolve) => stat('/', () => resolve()));
}

/**
 * Makes sure no later process of this pid namespace gets a pid of 1…`max`. Returns the highest
 * thread id of this process, or null when this could not be done (the facts are missing).
 */
export async function reserveMachineryPids(max: number): Promise<number | null> {
  await startThreadPool();
  const last = lastPid();
  if (last === null) return null;
  const burn = max - last;
  if (burn > 0) {
    spawnSync('/bin/sh', ['-c', `i=0; while [ $i -lt ${burn} ]; do : & i=$((i+1)); done; wait`], { stdio: 'ignore' });
  }
  const tids = readdirSync('/proc/self/task').map(Number);
  return Math.max(...tids);
}
