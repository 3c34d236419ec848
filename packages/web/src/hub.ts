/**
 * The pages of one server and what they share: the page's own agent, the keyboards of the
 * terminals, the session log's recent records, and one look every {@link WEB_TICK_MS} at the
 * lists and the jobs' output (in-process reads; terminals' output is pushed as it is written).
 * What a page asks is checked here: without input allowed, nothing it sends types or runs.
 */
import { DshError, isDshError, type Owner } from '@dsh/core';
import type { WebSocket } from 'ws';
import { Client } from './client.js';
import { runCommand } from './commands.js';
import type { WebHost } from './host.js';
import { KeyQueue } from './keyboard.js';
import { WEB_LOG_BACKLOG, WEB_TERMINAL_COLS, WEB_TERMINAL_ROWS, WEB_TICK_MS } from './limits.js';
import { forPage } from './log-feed.js';
import { type Look, Looker } from './look.js';
import { type ClientMessage, clientMessage, type ServerMessage } from './protocol.js';

function notice(error: unknown, id?: string): ServerMessage {
  const code = isDshError(error) ? error.code : 'WEB_ERROR';
  const text = error instanceof Error ? error.message : String(error);
  return { type: 'notice', level: 'error', code, text, ...(id ? { id } : {}) };
}

/** The shared state of a web server's pages. */
export class WebHub {
  private readonly clients = new Map<WebSocket, Client>();
  private readonly keyboards = new Map<string, KeyQueue>();
  /** The page that typed into each terminal last: it hears why keys were refused. */
  private readonly typers = new Map<string, Client>();
  private readonly backlog: Array<Record<string, unknown>> = [];
  private readonly unsubscribe: () => void;
  private timer: NodeJS.Timeout | undefined;
  private agent: Owner | undefined;
  private readonly looker = new Looker();
  /** This tick's look, made once for every page (null: look again). */
  private current: Look | null = null;

  constructor(
    private readonly host: WebHost,
    private readonly options: { input: boolean; agentName: string; title: string },
  ) {
    this.unsubscribe = host.onLogRecord((written) => {
      const record = forPage(written);
      this.backlog.push(record);
      if (this.backlog.length > WEB_LOG_BACKLOG) this.backlog.shift();
      for (const client of this.clients.values()) client.post({ type: 'log', records: [record] });
    });
  }

  /** Pages connected now. */
  get size(): number {
    return this.clients.size;
  }

  /** A new page: it gets the facts, the recent log, and then everything live. */
  attach(socket: WebSocket): void {
    const client = new Client(socket);
    this.clients.set(socket, client);
    socket.on('message', (raw, binary) => void this.receive(client, binary ? '' : String(raw)));
    socket.on('close', () => {
      client.close();
      this.clients.delete(socket);
      if (this.clients.size === 0) this.stopTicking();
    });
    socket.on('error', () => undefined);
    const dump = this.host.dumpConfig();
    const config = dump.config as { workspace?: unknown; sessionLog?: unknown };
    client.post({
      type: 'hello',
      input: this.options.input,
      title: this.options.title,
      agent: this.options.agentName,
      facts: {
        preset: dump.preset,
        workspace: config.workspace,
        sandbox: (dump.sandbox as { mode?: unknown } | undefined)?.mode,
        world: (dump.world as { kind?: unknown } | undefined)?.kind,
        log: Boolean(config.sessionLog),
      },
    });
    if (this.backlog.length > 0) client.post({ type: 'log', records: [...this.backlog] });
    this.look(client);
    this.timer ??= setInterval(() => this.tick(), WEB_TICK_MS);
  }

  private tick(): void {
    this.current = null;
    for (const client of this.clients.values()) this.look(client);
    const live = new Set(this.lookNow().terminalRows.map((t) => t.id));
    for (const id of this.keyboards.keys()) {
      if (live.has(id)) continue;
      this.keyboards.delete(id);
      this.typers.delete(id);
    }
  }

  /** This tick's look (made on first use). */
  private lookNow(): Look {
    this.current ??= this.looker.look(this.host.ctx.terminals, this.host.ctx.jobs);
    return this.current;
  }

  private look(client: Client): void {
    const look = this.lookNow();
    client.syncTerminals(look, this.host.ctx.terminals);
    client.syncJobs(look, this.host.ctx.jobs);
  }

  private stopTicking(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async receive(client: Client, raw: string): Promise<void> {
    let message: ClientMessage;
    try {
      message = clientMessage.parse(JSON.parse(raw));
    } catch {
      client.post({
        type: 'notice',
        level: 'error',
        code: 'INVALID_ARGUMENT',
        text: 'The page sent a malformed message.',
      });
      return;
    }
    if (message.type === 'ack') {
      client.streams.get(message.id)?.ack(message.chars);
      return;
    }
    if (!this.options.input) {
      client.post({
        type: 'notice',
        level: 'error',
        code: 'WEB_READ_ONLY',
        text: 'This page is read-only: it shows what the agent does. Start it with --web-input to type here.',
        ...('id' in message ? { id: message.id } : {}),
      });
      return;
    }
    try {
      await this.act(client, message);
    } catch (error) {
      client.post(notice(error, 'id' in message ? message.id : undefined));
    }
    if (message.type === 'keys') return; // the next tick shows what typing changed
    this.current = null; // a terminal or job opened, closed or started: show it now
    this.look(client);
  }

  private async act(client: Client, message: Exclude<ClientMessage, { type: 'ack' }>): Promise<void> {
    const { terminals, jobs } = this.host.ctx;
    switch (message.type) {
      case 'keys': {
        const { id } = message;
        let keyboard = this.keyboards.get(id);
        if (!keyboard) {
          const refused = (e: unknown): void => this.typers.get(id)?.post(notice(e, id));
          keyboard = new KeyQueue(this.needTerminals(), this.terminalOwner(id), id, refused);
          this.keyboards.set(id, keyboard);
        }
        this.typers.set(id, client);
        keyboard.type(message.data);
        return;
      }
      case 'open':
        await this.needTerminals().open(this.me(), { type: 'shell', cols: WEB_TERMINAL_COLS, rows: WEB_TERMINAL_ROWS });
        return;
      case 'close':
        await terminals?.close(this.terminalOwner(message.id), message.id);
        this.keyboards.delete(message.id);
        this.typers.delete(message.id);
        return;
      case 'run':
        client.post(await runCommand(this.host, this.me(), message));
        return;
      case 'kill': {
        const entry = jobs?.overview().find((j) => j.info.id === message.id);
        if (!jobs || !entry) throw new DshError('JOB_NOT_FOUND', `No job "${message.id}".`);
        await jobs.kill(entry.owner, message.id);
        return;
      }
    }
  }

  /** The page's own agent, made on first use. */
  private me(): Owner {
    this.agent ??= this.host.createAgent(this.options.agentName);
    return this.agent;
  }

  private needTerminals() {
    const terminals = this.host.ctx.terminals;
    if (!terminals) {
      throw new DshError('WEB_NO_TERMINALS', 'This composition has no terminals (use the full or minimal preset).');
    }
    return terminals;
  }

  private terminalOwner(id: string): Owner {
    const entry = this.needTerminals()
      .overview()
      .find((t) => t.info.id === id);
    if (!entry) throw new DshError('TERMINAL_NOT_FOUND', `No terminal "${id}" (closed?).`);
    return entry.owner;
  }

  /** Disconnects every page and stops looking. */
  close(): void {
    this.unsubscribe();
    this.stopTicking();
    for (const client of this.clients.values()) client.disconnect();
    this.clients.clear();
  }
}
