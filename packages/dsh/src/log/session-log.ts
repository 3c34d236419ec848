/**
 * The session log (DESIGN §13): `<root>/<YYYY-MM-DD>/<session-id>/session.jsonl`, one JSON
 * object a line — the session start, every tool call (arguments as the model sent them, the
 * rendered result), every background job's end, every terminal send (input, bounded output,
 * reason), the keys a person typed into a terminal (dsh web), and every connection a world's proxy
 * made or refused (network by name). Lines are written synchronously, one `write` each, so a crash loses at most the line
 * being written. Files are 0600 in 0700 directories. A clean end compresses the file to
 * `session.jsonl.zstd`; a crashed session stays `.jsonl`. Facts are not stored twice: they are
 * recovered from the rendered text with `parseShellResult`.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, makeFreshPrivateDir, type PrivateDirOptions } from '@dsh/core';
import { sweepSessions } from './retention.js';
import { zstdCompress } from './zstd.js';

/** Where session logs go unless configured otherwise. */
export const DEFAULT_SESSION_ROOT = join(homedir(), '.dsh', 'sessions');
/** What a refused session log directory's message says to do. */
const LOG_DIR: PrivateDirOptions = {
  what: 'The session log directory',
  remedy: 'choose another with --log-dir (config.sessionLog.dir)',
};
/** Output of one terminal send kept in the log: enough to follow the session, bounded like a tool result. */
export const LOG_SEND_OUTPUT_MAX_CHARS = 8_000;
/** Logs larger than this stay uncompressed at the end: compression holds the whole file in memory. */
export const COMPRESS_MAX_BYTES = 256 * 1024 * 1024;
/** The file name of a live (or crashed) session log, and of a cleanly ended one. */
export const LOG_FILE = 'session.jsonl';
export const LOG_FILE_ZSTD = 'session.jsonl.zstd';

/** What the first line of a session says. */
export interface SessionStart {
  preset: string;
  workspace: string;
  sandbox: string;
  version: string;
}

/** `text` cut to its last `max` characters, with the count of what was cut. */
function bounded(text: string, max: number): { text: string; omitted: number } {
  return text.length <= max
    ? { text, omitted: 0 }
    : { text: text.slice(text.length - max), omitted: text.length - max };
}

/** An open session log. Create with {@link SessionLog.open}. */
export class SessionLog {
  private fd: number;
  private closing: Promise<void> | undefined;
  /** Why writing stopped (e.g. the disk is full); null while it works. */
  error: string | null = null;
  private readonly listeners = new Set<(record: Record<string, unknown>) => void>();

  private constructor(
    /** The session's id (also its directory name). */
    readonly id: string,
    /** The session's directory. */
    readonly dir: string,
  ) {
    this.fd = openSync(join(dir, LOG_FILE), 'a', 0o600);
  }

  /** The log file while the session is live. */
  get path(): string {
    return join(this.dir, LOG_FILE);
  }

  /**
   * Checks `root` (and `~/.dsh` for the default root; see {@link ensurePrivateDir}), starts a new
   * session under it (sweeping sessions past retention first) and writes its first line.
   * @throws DshError `UNSAFE_DIRECTORY` when the root, `~/.dsh` or the day directory is a
   * symbolic link, not a directory or another user's; other errors when the directory cannot be
   * made (the caller decides whether to run unlogged).
   */
  static open(root: string, start: SessionStart): SessionLog {
    const now = new Date();
    if (root === DEFAULT_SESSION_ROOT) ensurePrivateDir(dirname(root), LOG_DIR);
    ensurePrivateDir(root, LOG_DIR);
    sweepSessions(root, now.getTime());
    const day = now.toISOString().slice(0, 10);
    const id = `${now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
    ensurePrivateDir(join(root, day), LOG_DIR);
    const dir = join(root, day, id);
    makeFreshPrivateDir(dir, LOG_DIR);
    const log = new SessionLog(id, dir);
    log.write({ type: 'session_start', session: id, pid: process.pid, ...start });
    return log;
  }

  /** Appends one record (with its time). Never throws: a failing disk stops the log, not the session. */
  write(record: Record<string, unknown>): void {
    if (this.fd < 0 || this.error !== null) return;
    const line = { ts: new Date().toISOString(), ...record };
    try {
      writeSync(this.fd, `${JSON.stringify(line)}\n`);
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      return;
    }
    for (const listener of this.listeners) {
      try {
        listener(line);
      } catch {
        // a reader's failure must not stop the log
      }
    }
  }

  /** Calls `listener` with every record written from now on (as written). Returns the unsubscribe. */
  onRecord(listener: (record: Record<string, unknown>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One tool call: the arguments as the model sent them and the rendered result. */
  toolCall(entry: { agent: string; tool: string; args: unknown; text: string; isError: boolean; durationMs: number }) {
    this.write({
      type: 'tool_call',
      agent: entry.agent,
      tool: entry.tool,
      args: entry.args,
      text: entry.text,
      is_error: entry.isError,
      duration_ms: entry.durationMs,
    });
  }

  /** A background job's end: its id, state and rendered outcome (the markers). */
  jobEnd(entry: { agent: string; jobId: string; title: string; state: string; text: string }): void {
    this.write({
      type: 'job_end',
      agent: entry.agent,
      job_id: entry.jobId,
      title: entry.title,
      state: entry.state,
      text: entry.text,
    });
  }

  /** One terminal send: the input, its output (bounded), and why control came back. */
  terminalSend(entry: {
    agent: string;
    terminalId: string;
    input: string;
    output: string;
    reason: string;
    exitCode: number | null;
  }) {
    const out = bounded(entry.output, LOG_SEND_OUTPUT_MAX_CHARS);
    this.write({
      type: 'terminal_send',
      agent: entry.agent,
      terminal_id: entry.terminalId,
      input: entry.input,
      output: out.text,
      ...(out.omitted > 0 ? { output_omitted: out.omitted } : {}),
      reason: entry.reason,
      exit_code: entry.exitCode,
    });
  }

  /** Keys a person typed into a terminal in one typing turn (dsh web), bounded like a send's output. */
  terminalKeys(entry: { agent: string; terminalId: string; input: string }): void {
    const input = bounded(entry.input, LOG_SEND_OUTPUT_MAX_CHARS);
    this.write({
      type: 'terminal_keys',
      agent: entry.agent,
      terminal_id: entry.terminalId,
      input: input.text,
      ...(input.omitted > 0 ? { input_omitted: input.omitted } : {}),
    });
  }

  /** One connection a world's proxy made or refused (network by name): where, whether, and the bytes. */
  network(entry: {
    agent: string;
    host: string;
    port: number;
    via: string;
    allowed: boolean;
    reason: string | null;
    sent: number;
    received: number;
  }): void {
    this.write({
      type: 'network',
      agent: entry.agent,
      host: entry.host,
      port: entry.port,
      via: entry.via,
      allowed: entry.allowed,
      ...(entry.reason ? { reason: entry.reason } : {}),
      sent: entry.sent,
      received: entry.received,
    });
  }

  /** The clean end: a last line, then the file compressed to `session.jsonl.zstd`. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.write({ type: 'session_end' });
      if (this.fd >= 0) closeSync(this.fd);
      this.fd = -1;
      await compressLog(this.dir);
    })();
    return this.closing;
  }
}

/** Compresses a session's log in place (best effort: a failure leaves the readable `.jsonl`). */
async function compressLog(dir: string): Promise<void> {
  const plain = join(dir, LOG_FILE);
  try {
    const data = readFileSync(plain);
    if (data.length > COMPRESS_MAX_BYTES) return;
    const packed = await zstdCompress(data);
    const tmp = join(dir, `.${LOG_FILE_ZSTD}.tmp`);
    writeFileSync(tmp, packed, { mode: 0o600 });
    renameSync(tmp, join(dir, LOG_FILE_ZSTD));
    unlinkSync(plain);
  } catch {
    // the plain log stays; `dsh log show` reads it
  }
}
