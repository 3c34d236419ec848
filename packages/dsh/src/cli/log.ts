/**
 * `dsh log list` and `dsh log show SESSION|PATH [--json]`: the session logs under a root.
 */
import { listSessions, locateSession, readSession } from '../log/read-log.js';
import { DEFAULT_SESSION_ROOT } from '../log/session-log.js';
import { renderSession, renderSessionJson } from '../log/show-log.js';

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Lists the sessions, oldest first. */
export function listCommand(options: { logDir?: string }): number {
  const root = options.logDir ?? DEFAULT_SESSION_ROOT;
  const sessions = listSessions(root);
  if (sessions.length === 0) {
    process.stdout.write(`No sessions under ${root}.\n`);
    return 0;
  }
  for (const s of sessions)
    process.stdout.write(`${s.day}  ${s.id}  ${s.status.padEnd(5)}  ${size(s.bytes).padStart(9)}\n`);
  return 0;
}

/** Prints one session (by id, id prefix, or path). */
export async function showCommand(target: string, options: { logDir?: string; json?: boolean }): Promise<number> {
  const read = await readSession(locateSession(target, options.logDir ?? DEFAULT_SESSION_ROOT));
  process.stdout.write(options.json ? renderSessionJson(read) : renderSession(read));
  return 0;
}
