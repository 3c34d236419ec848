// The terminal panels: one xterm.js screen (DOM renderer) per open terminal, fed by the server's
// snapshot and then its output; what the keyboard types goes back as `keys`.
import { el, notify } from './dom.js';

/** Answers a terminal gives to a program's queries: the server's own emulator has answered them already. */
const QUERY_REPLY =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal replies are escape sequences
  /^(?:\x1b\[[?>]?[\d;]*[cnR]|\x1b\[\??[\d;]*\$y|\x1bP[^\x1b]*\x1b\\|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[IO]|\x1b\[\?\d*u)$/;

/** Mouse reports (a program turned mouse tracking on): a person's pointer over a panel must not type. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: mouse reports are escape sequences
const MOUSE_REPORT = /^\x1b\[(?:<[\d;]*[Mm]|M[\s\S]{3})$/;

/** Acknowledgements go back at most this often (flow control; see the server's TerminalStream). */
const ACK_EVERY_MS = 25;
/** Keys per message at most: a long paste goes in pieces (the server takes 16 Ki characters a message). */
const KEYS_PER_MESSAGE = 4096;
/** A read-only page says so at most this often while someone types at it. */
const READ_ONLY_NOTICE_MS = 3000;

export class Terminals {
  constructor(send) {
    this.send = send;
    this.panels = new Map();
    this.acks = new Map();
    this.ackTimer = null;
    this.input = false;
    this.toldReadOnly = 0;
    /** Set by the New terminal button: the next terminal to appear gets the keyboard. */
    this.focusNext = false;
  }

  /** The list changed: panels for new terminals, none for closed ones. */
  list(rows) {
    const box = document.getElementById('terminal-list');
    const seen = new Set();
    for (const row of rows) {
      seen.add(row.id);
      let panel = this.panels.get(row.id);
      if (!panel) {
        panel = this.create(row.id);
        box.append(panel.root);
        if (this.focusNext && row.owner === this.me) {
          this.focusNext = false;
          panel.root.scrollIntoView({ block: 'nearest' });
          panel.term.focus();
        }
      }
      const state =
        row.state === 'exited'
          ? `exited (${row.exitCode ?? 'signal'})`
          : row.foreground
            ? `running ${row.foreground}`
            : 'at the prompt';
      panel.title.textContent = `${row.name ?? row.id} · ${row.owner} · ${state}${row.busy ? ' · busy' : ''}`;
    }
    for (const [id, panel] of this.panels) {
      if (seen.has(id)) continue;
      panel.term.dispose();
      panel.root.remove();
      this.panels.delete(id);
    }
    document.getElementById('no-terminals').hidden = rows.length > 0;
  }

  create(id) {
    const title = el('span', { class: 'title' }, id);
    const close = el('button', { type: 'button', class: 'close', disabled: !this.input }, 'Close');
    close.addEventListener('click', () => this.send({ type: 'close', id }));
    const screen = el('div', { class: 'screen', 'data-screen': id });
    const root = el(
      'div',
      { class: 'dsh-terminal', 'data-terminal-id': id },
      el('div', { class: 'dsh-terminal-head' }, title, close),
      screen,
    );
    const term = new window.Terminal({
      cols: 120,
      rows: 40,
      scrollback: 1000,
      fontSize: 12,
      fontFamily: 'DejaVu Sans Mono, ui-monospace, monospace',
      convertEol: false,
      screenReaderMode: false,
      // Links printed by a program (OSC 8) open only when they are http(s), in a new tab.
      linkHandler: {
        activate: (_event, uri) => {
          if (/^https?:\/\//i.test(uri)) window.open(uri, '_blank', 'noopener,noreferrer');
        },
      },
    });
    term.open(screen);
    term.onData((data) => {
      if (QUERY_REPLY.test(data) || MOUSE_REPORT.test(data)) return;
      if (!this.input) {
        if (Date.now() - this.toldReadOnly > READ_ONLY_NOTICE_MS) {
          this.toldReadOnly = Date.now();
          notify('This page is read-only: it shows what the agent does (start it with --web-input to type).');
        }
        return;
      }
      for (let at = 0; at < data.length; at += KEYS_PER_MESSAGE) {
        this.send({ type: 'keys', id, data: data.slice(at, at + KEYS_PER_MESSAGE) });
      }
    });
    const panel = { root, title, close, term };
    this.panels.set(id, panel);
    return panel;
  }

  /** The screen from a snapshot (after a connect, or after the page fell behind). */
  screen(message) {
    const panel = this.panels.get(message.id) ?? this.create(message.id);
    if (!panel.root.isConnected) document.getElementById('terminal-list').append(panel.root);
    panel.term.reset();
    panel.term.resize(message.cols, message.rows);
    this.write(panel, message.id, message.data);
  }

  output(message) {
    const panel = this.panels.get(message.id);
    if (panel) this.write(panel, message.id, message.data);
  }

  write(panel, id, data) {
    panel.term.write(data, () => {
      this.acks.set(id, (this.acks.get(id) ?? 0) + data.length);
      this.ackTimer ??= setTimeout(() => this.flushAcks(), ACK_EVERY_MS);
    });
  }

  flushAcks() {
    this.ackTimer = null;
    for (const [id, chars] of this.acks) this.send({ type: 'ack', id, chars });
    this.acks.clear();
  }

  setInput(input, me) {
    this.input = input;
    this.me = me;
    for (const panel of this.panels.values()) panel.close.disabled = !input;
  }

  /** The connection is gone: the next one sends every screen again. */
  reset() {
    for (const panel of this.panels.values()) {
      panel.term.dispose();
      panel.root.remove();
    }
    this.panels.clear();
    this.acks.clear();
  }
}
