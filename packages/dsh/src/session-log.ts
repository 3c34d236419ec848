/**
 * The session log: one JSON line per tool call with its arguments and result. The result text
 * is the rendered form, so `parseShellResult` recovers the machine facts from the log alone.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResult } from '@dsh/core';

/** An append-only JSONL log of tool calls. */
export class SessionLog {
  /** The log file. */
  readonly path: string;

  /** Creates the directory (0700) and names a new file in it; nothing is written until the first call. */
  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    this.path = join(dir, `session-${stamp}-${randomBytes(3).toString('hex')}.jsonl`);
  }

  /** Appends one call. Synchronous, so a crash never loses a call that returned. */
  record(entry: { agent: string; tool: string; args: unknown; result: ToolResult; durationMs: number }): void {
    const line = JSON.stringify({ ts: new Date().toISOString(), ...entry });
    appendFileSync(this.path, `${line}\n`, { mode: 0o600 });
  }
}
