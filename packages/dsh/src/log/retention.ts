/**
 * Bounded session history: at each new session, sessions older than {@link SESSION_RETAIN_MS}
 * are removed, and then the oldest until all kept sessions fit in {@link SESSION_RETAIN_BYTES}.
 */
import { lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Sessions older than this are removed: a month of history. */
export const SESSION_RETAIN_MS = 30 * 24 * 60 * 60 * 1000;
/** All kept sessions together stay under this many bytes; the oldest go first. */
export const SESSION_RETAIN_BYTES = 1024 * 1024 * 1024;
/** Day directories are named like this; anything else under the root is not ours and is left alone. */
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A session directory found under a root. */
export interface SessionDir {
  day: string;
  id: string;
  dir: string;
  /** Last change of its files (epoch ms). */
  mtimeMs: number;
  bytes: number;
}

/** True when `path` is a directory itself, not a symbolic link to one (a swapped-in link is never swept through). */
function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function list(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Every session directory under `root`, oldest first. */
export function sessionDirs(root: string): SessionDir[] {
  const found: SessionDir[] = [];
  for (const day of list(root)) {
    if (!DAY.test(day) || !isRealDir(join(root, day))) continue;
    for (const id of list(join(root, day))) {
      const dir = join(root, day, id);
      if (!isRealDir(dir)) continue;
      let bytes = 0;
      let mtimeMs = 0;
      for (const file of list(dir)) {
        try {
          const st = statSync(join(dir, file));
          bytes += st.size;
          mtimeMs = Math.max(mtimeMs, st.mtimeMs);
        } catch {
          // vanished meanwhile
        }
      }
      found.push({ day, id, dir, mtimeMs, bytes });
    }
  }
  return found.sort((a, b) => a.mtimeMs - b.mtimeMs);
}

/** Removes sessions past the age limit, then the oldest past the size budget; empty day directories go too. */
export function sweepSessions(
  root: string,
  now: number,
  limits: { maxAgeMs: number; maxBytes: number } = { maxAgeMs: SESSION_RETAIN_MS, maxBytes: SESSION_RETAIN_BYTES },
): void {
  const all = sessionDirs(root);
  let total = all.reduce((n, s) => n + s.bytes, 0);
  for (const s of all) {
    if (now - s.mtimeMs <= limits.maxAgeMs && total <= limits.maxBytes) continue;
    rmSync(s.dir, { recursive: true, force: true });
    total -= s.bytes;
  }
  for (const day of list(root)) {
    if (DAY.test(day) && isRealDir(join(root, day)) && list(join(root, day)).length === 0)
      rmSync(join(root, day), { recursive: true, force: true });
  }
}
