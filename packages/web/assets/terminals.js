// The terminal panels: one xterm.js screen (DOM renderer) per open terminal, fed by the server's
// snapshot and then its output; what the keyboard types goes back as `keys`.
import { el } from './dom.js';

/** Answers a terminal gives to a program's queries: the server's own emulator has answered them already. */
const QUERY_REPLY =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal replies are escape sequences
  /^(?:\x1b\[[?>]?[\d;]*[cnR]|\x1b\[\??[\d;]*\$y|\x1bP[^\x1b]*\x1b\\|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[IO]|\x1b\[\?\d*u)$/;

/** Acknowledgements go back at most this often (flow control; see the server's TerminalStream). */
const ACK_EVERY_MS = 25;

export class Terminals {
  constructor(send) {
    this.send = send;
    this.panels = new Map();
    this.acks = new Map();
    this.ackTimer = null;
    this.input = false;
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
      { class: 'terminal', 'data-terminal-id': id },
      el('div', { class: 'terminal-head' }, title, close),
      screen,
    );
    const term = new window.Terminal({
      cols: 120,
      rows: 40,
      scrollback: 1000,
      fontSize: 13,
      fontFamily: 'DejaVu Sans Mono, ui-monospace, monospace',
      convertEol: false,
      screenReaderMode: false,
    });
    term.open(screen);
    term.onData((data) => {
      if (QUERY_REPLY.test(data)) return;
      this.send({ type: 'keys', id, data });
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

  setInput(input) {
    this.input = input;
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
