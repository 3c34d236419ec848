/**
 * `dsh log show`: a session log as a person reads it, or as JSON lines. Machine facts (exit
 * code, signal, timeout, abort, truncation, sandbox denial) are recovered from the rendered
 * text with `parseShellResult`: the log keeps no second copy of them.
 */
import { parseShellResult } from '@dsh/shell';
import type { LogRecord, SessionRead } from './read-log.js';

/** Facts recovered from a record's rendered text, when it is a rendered shell result. */
export interface RecoveredFacts {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  aborted: boolean;
  truncated: boolean;
  sandbox_denied: boolean;
}

/** The facts in `record`'s rendered text, or null when the text is not a rendered result. */
export function factsOfRecord(record: LogRecord): RecoveredFacts | null {
  const text = typeof record.text === 'string' ? record.text : null;
  if (text === null) return null;
  const parsed = parseShellResult(text);
  if (!parsed.wellFormed) return null;
  return {
    exit_code: parsed.exitCode,
    signal: parsed.signal,
    timed_out: parsed.timedOut,
    aborted: parsed.aborted,
    truncated: parsed.truncated,
    sandbox_denied: parsed.sandboxDenied,
  };
}

function status(facts: RecoveredFacts | null): string {
  if (!facts) return '';
  const parts = [facts.signal ? `killed by ${facts.signal}` : `exit ${facts.exit_code ?? '?'}`];
  if (facts.timed_out) parts.push('timed out');
  if (facts.aborted) parts.push('aborted');
  if (facts.truncated) parts.push('truncated');
  if (facts.sandbox_denied) parts.push('sandbox denied');
  return ` → ${parts.join(', ')}`;
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

function line(record: LogRecord): string {
  const time = record.ts.slice(11, 19);
  const r = record as Record<string, unknown>;
  switch (record.type) {
    case 'session_start':
      return `${record.ts} session ${r.session} · preset ${r.preset} · workspace ${r.workspace} · sandbox ${r.sandbox} · dsh ${r.version}`;
    case 'tool_call': {
      const facts = factsOfRecord(record);
      const err = r.is_error === true ? ' (error)' : '';
      return `${time} ${r.agent} ${r.tool} ${JSON.stringify(r.args)}${status(facts)}${err} [${r.duration_ms} ms]\n${indent(String(r.text))}`;
    }
    case 'job_end':
      return `${time} ${r.agent} job ${r.job_id} ${r.state}${status(factsOfRecord(record))}: ${r.title}`;
    case 'terminal_send': {
      const code = r.exit_code === null || r.exit_code === undefined ? '' : `, exit ${r.exit_code}`;
      return `${time} ${r.agent} ${r.terminal_id} ← ${JSON.stringify(r.input)} (${r.reason}${code})\n${indent(String(r.output))}`;
    }
    case 'terminal_keys':
      return `${time} ${r.agent} ${r.terminal_id} ⌨ ${JSON.stringify(r.input)} (typed by a person at the keyboard)`;
    case 'network': {
      const what = r.allowed === true ? `${r.sent} bytes out, ${r.received} in` : `refused: ${r.reason ?? ''}`;
      return `${time} ${r.agent} network ${r.host}:${r.port} (${r.via}) ${what}`;
    }
    case 'session_end':
      return `${record.ts} session ended`;
    default:
      return `${time} ${JSON.stringify(record)}`;
  }
}

/** The session as text for a person. */
export function renderSession(read: SessionRead): string {
  const out = read.records.map(line);
  if (!read.compressed) out.push('(the session did not end cleanly, or is still running: the log is not compressed)');
  if (read.skipped > 0) out.push(`(${read.skipped} unreadable line(s) skipped: a crash cut the last write)`);
  return `${out.join('\n')}\n`;
}

/** The session as JSON lines, each record with the facts recovered from its rendered text. */
export function renderSessionJson(read: SessionRead): string {
  return `${read.records.map((r) => JSON.stringify({ ...r, facts: factsOfRecord(r) })).join('\n')}\n`;
}
