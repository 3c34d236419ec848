/**
 * Session-log records as a page gets them: each long text field (a result, an output, typed
 * keys, the arguments) cut to its last {@link WEB_LOG_RECORD_MAX_CHARS} characters, with the
 * count cut in `<field>_omitted`. The log file keeps all of it.
 */
import { WEB_LOG_RECORD_MAX_CHARS } from './limits.js';

const TEXT_FIELDS = ['text', 'output', 'input'] as const;

/** A record bounded for a page. */
export function forPage(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record };
  for (const field of TEXT_FIELDS) {
    const value = out[field];
    if (typeof value !== 'string' || value.length <= WEB_LOG_RECORD_MAX_CHARS) continue;
    out[field] = value.slice(value.length - WEB_LOG_RECORD_MAX_CHARS);
    out[`${field}_omitted`] = value.length - WEB_LOG_RECORD_MAX_CHARS;
  }
  if (out.args !== undefined) {
    const args = JSON.stringify(out.args) ?? '';
    if (args.length > WEB_LOG_RECORD_MAX_CHARS) out.args = `${args.slice(0, WEB_LOG_RECORD_MAX_CHARS)}…`;
  }
  return out;
}
