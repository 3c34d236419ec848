/**
 * The only place that sends signals. Every target is checked: never pid 0, 1 or a
 * negative of them (a foreground group of -1 would otherwise become `kill(1)`).
 */

/** Smallest pid or group id we ever signal: 0 and 1 (and their negatives) mean "everyone" or init. */
export const MIN_SIGNAL_TARGET = 2;

/** Sends `signal` to process `pid`. False when it is gone or the target is refused. */
export function signalProcess(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isSafeInteger(pid) || pid < MIN_SIGNAL_TARGET || pid === process.pid) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to every member of process group `pgid`. False when the group is gone or the target is refused. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isSafeInteger(pgid) || pgid < MIN_SIGNAL_TARGET || pgid === process.pid) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
