/**
 * Reading session logs back (`dsh log list`, `dsh log show`): plain `.jsonl` (a live or crashed
 * session) and `.jsonl.zstd` (a clean end) alike. A torn last line (a crash mid-write) is
 * skipped and counted, never an error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DshError } from '@dsh/core';
import { sessionDirs } from './retention.js';
import { LOG_FILE, LOG_FILE_ZSTD } from './session-log.js';
import { zstdDecompress } from './zstd.js';

/** One record of a session log. */
export type LogRecord = Record<string, unknown> & { type: string; ts: string };

/** A session log read back. */
export interface SessionRead {
  path: string;
  /** True when the file is the compressed form of a clean end. */
  compressed: boolean;
  records: LogRecord[];
  /** Lines that did not parse (at most the torn last line of a crash). */
  skipped: number;
}

/** The log file of a session directory: the compressed one when present. */
function fileIn(dir: string): string | null {
  for (const name of [LOG_FILE_ZSTD, LOG_FILE]) if (existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/**
 * Finds a session by id (under `root`) or by path (a session directory or its log file).
 * @throws DshError `SESSION_NOT_FOUND`.
 */
export function locateSession(target: string, root: string): string {
  if (existsSync(target)) {
    const file = statSync(target).isDirectory() ? fileIn(target) : target;
    if (file) return file;
  }
  const match = sessionDirs(root).find((s) => s.id === target || s.id.startsWith(target));
  const file = match ? fileIn(match.dir) : null;
  if (!file) {
    throw new DshError(
      'SESSION_NOT_FOUND',
      `No session "${target}" under ${root}; \`dsh log list\` shows the sessions.`,
      {
        data: { target, root },
      },
    );
  }
  return file;
}

/** Reads one session log file. @throws DshError `SESSION_UNREADABLE`. */
export async function readSession(path: string): Promise<SessionRead> {
  const compressed = basename(path).endsWith('.zstd');
  let text: string;
  try {
    const raw = readFileSync(path);
    text = Buffer.from(compressed ? await zstdDecompress(raw) : raw).toString('utf8');
  } catch (error) {
    throw new DshError('SESSION_UNREADABLE', `Cannot read session log ${path}: ${String(error)}`, { data: { path } });
  }
  const records: LogRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const value = JSON.parse(line) as LogRecord;
      if (typeof value?.type === 'string') records.push(value);
      else skipped += 1;
    } catch {
      skipped += 1;
    }
  }
  return { path, compressed, records, skipped };
}

/** A session as listed. */
export interface SessionSummary {
  id: string;
  day: string;
  path: string;
  /** `ended` (compressed at a clean end) or `open` (live, or crashed). */
  status: 'ended' | 'open';
  bytes: number;
}

/** The sessions under `root`, oldest first. */
export function listSessions(root: string): SessionSummary[] {
  const out: SessionSummary[] = [];
  for (const s of sessionDirs(root)) {
    const path = fileIn(s.dir);
    if (!path) continue;
    out.push({ id: s.id, day: s.day, path, status: path.endsWith('.zstd') ? 'ended' : 'open', bytes: s.bytes });
  }
  // Oldest first by when each started (an id begins with its start time), not by its last write.
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
