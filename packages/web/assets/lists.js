// The jobs (their output growing), the results of commands run here, and the session log.
import { appendBounded, badges, el } from './dom.js';

/** Output kept on the page per job, and records of the log shown at most. */
const JOB_VIEW_MAX_CHARS = 64 * 1024;
const LOG_VIEW_MAX_RECORDS = 500;
/** Results of commands run here that the page keeps. */
const RESULTS_MAX = 50;

export class Jobs {
  constructor(send) {
    this.send = send;
    this.rows = new Map();
    this.input = false;
  }

  list(rows) {
    const box = document.getElementById('job-list');
    const seen = new Set();
    for (const row of rows) {
      seen.add(row.id);
      let view = this.rows.get(row.id);
      if (!view) {
        const head = el('div', { class: 'job-head' });
        const output = el('pre', { class: 'job-output', 'data-job-output': row.id });
        const end = el('div', { class: 'job-end' });
        const kill = el('button', { type: 'button', disabled: !this.input }, 'Kill');
        kill.addEventListener('click', () => this.send({ type: 'kill', id: row.id }));
        view = { root: el('div', { class: 'job', 'data-job-id': row.id }, head, output, end), head, output, end, kill };
        this.rows.set(row.id, view);
        box.prepend(view.root);
      }
      view.head.replaceChildren(
        el('span', { class: 'badge' }, row.state),
        ' ',
        el('code', {}, row.title),
        el('span', { class: 'dim' }, ` · ${row.owner} · ${row.id} `),
        ...(row.end ? [] : [view.kill]),
      );
      view.end.replaceChildren(...(row.end ? [badges(row.end.markers)] : []));
    }
    for (const [id, view] of this.rows) {
      if (seen.has(id)) continue;
      view.root.remove();
      this.rows.delete(id);
    }
    document.getElementById('no-jobs').hidden = rows.length > 0;
  }

  output(message) {
    const view = this.rows.get(message.id);
    if (!view) return;
    if (message.omitted > 0)
      appendBounded(view.output, `[… ${message.omitted} characters not shown]\n`, JOB_VIEW_MAX_CHARS);
    appendBounded(view.output, message.text, JOB_VIEW_MAX_CHARS);
  }

  setInput(input) {
    this.input = input;
    for (const view of this.rows.values()) view.kill.disabled = !input;
  }

  reset() {
    for (const view of this.rows.values()) view.root.remove();
    this.rows.clear();
  }
}

/** Results of the commands run from this page, newest first. */
export class Results {
  constructor() {
    this.pending = new Map();
  }

  started(ref, command, background) {
    const root = el(
      'div',
      { class: 'result', 'data-result': ref },
      el('code', {}, `$ ${command}`),
      el('span', { class: 'dim' }, background ? ' (background)' : ''),
    );
    const box = document.getElementById('results');
    box.prepend(root);
    while (box.children.length > RESULTS_MAX) box.lastElementChild.remove();
    this.pending.set(ref, root);
  }

  /** The connection is gone: results still awaited will not come. */
  reset() {
    for (const root of this.pending.values()) root.append(' (the connection was lost before it finished)');
    this.pending.clear();
  }

  done(message) {
    const root = this.pending.get(message.ref);
    if (!root) return;
    this.pending.delete(message.ref);
    root.append(el('pre', {}, message.body), badges(message.markers));
    if (message.isError) root.classList.add('error');
  }
}

/** Keys as a person reads them: Enter as ⏎ and a line break, Ctrl-C as ^C, other control keys as ^X. */
function readableKeys(keys) {
  let out = '';
  for (const c of String(keys ?? '')) {
    const code = c.charCodeAt(0);
    if (c === '\r') out += '⏎\n';
    else if (code === 0x1b) out += '⎋';
    else if (code === 0x7f) out += '⌫';
    else if (code < 0x20 && c !== '\n' && c !== '\t') out += `^${String.fromCharCode(code + 64)}`;
    else out += c;
  }
  return out;
}

/** Why a send came back, in words. */
const REASONS = {
  stdin_read: 'ready',
  inferred_idle: 'quiet',
  timeout: 'still running',
  session_exited: 'the shell exited',
};

function summary(record) {
  const time = typeof record.ts === 'string' ? record.ts.slice(11, 19) : '';
  const who = record.agent ? ` ${record.agent}` : '';
  switch (record.type) {
    case 'tool_call':
      return `${time}${who} → ${record.tool} ${JSON.stringify(record.args ?? {}).slice(0, 160)}${record.is_error ? ' (error)' : ''}`;
    case 'terminal_send':
      return `${time}${who} ⌨ ${record.terminal_id} ${JSON.stringify(record.input ?? '').slice(0, 160)} (${REASONS[record.reason] ?? record.reason})`;
    case 'terminal_keys':
      return `${time}${who} ⌨ ${record.terminal_id} typed by a person: ${readableKeys(record.input).replace(/\n/g, ' ').slice(0, 160)}`;
    case 'job_end':
      return `${time}${who} ■ ${record.job_id} ${record.state}: ${String(record.title ?? '').slice(0, 120)}`;
    default:
      return `${time} ${record.type}`;
  }
}

/** The session log, as it grows. */
export class Log {
  add(records) {
    const box = document.getElementById('log-list');
    for (const record of records) {
      const body =
        record.type === 'terminal_keys'
          ? readableKeys(record.input)
          : (record.text ?? record.output ?? record.input ?? '');
      const item = el(
        'details',
        { class: 'record', 'data-log-type': record.type ?? '' },
        el('summary', {}, summary(record)),
        el('pre', {}, typeof body === 'string' ? body : JSON.stringify(body)),
      );
      box.append(item);
    }
    while (box.children.length > LOG_VIEW_MAX_RECORDS) box.firstElementChild.remove();
    box.scrollTop = box.scrollHeight;
    document.getElementById('no-log').hidden = box.children.length > 0;
  }

  reset() {
    document.getElementById('log-list').replaceChildren();
  }
}
