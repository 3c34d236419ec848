/**
 * `TerminalService` (ctx.terminals): ids minted here, owner-only access (a foreign id reads as
 * unknown), backends by type, publication only after setup, one send at a time, cancel,
 * scrollback, and close/disposeOwner that wait for cleanup.
 */
import { randomBytes } from 'node:crypto';
import { DshError, isOwner, type Owner } from '@dsh/core';
import { checkFree, checkSlot, type Entry, infoOf } from './entry.js';
import { MAX_CLOSED_REMEMBERED, MAX_TYPE_CHARS } from './limits.js';
import type {
  ScreenView,
  ScrollbackPage,
  SendResult,
  TerminalBackend,
  TerminalId,
  TerminalInfo,
  TerminalSession,
  TerminalWatch,
  TerminalWatchEvent,
} from './types.js';
import { type TerminalTypeListener, TypingTurn } from './typing.js';
import { checkOpen, checkPage, checkSend, checkSize, checkWait } from './validate.js';

/** How long a cancel waits for the terminal to be ready again, unless told otherwise. */
export const DEFAULT_CANCEL_WAIT_MS = 5_000;

declare module '@dsh/core' {
  interface ServiceMap {
    /** Persistent interactive terminals, owned by agents. */
    terminals: TerminalService;
  }
}

/** Told after every send settles: who sent what to which terminal, and what came back. */
export type TerminalSendListener = (
  owner: Owner,
  event: { terminalId: TerminalId; input: string; result: SendResult },
) => void;

/** Persistent terminals by owner. */
export class TerminalService {
  private readonly sendListeners = new Set<TerminalSendListener>();
  private readonly typeListeners = new Set<TerminalTypeListener>();
  private readonly backends = new Map<string, TerminalBackend>();
  private readonly entries = new Map<string, Entry>();
  /** Ids closed, with their owner: a repeated close by that owner answers false. */
  private readonly closed = new Map<string, Owner>();
  /** Opens in progress, per owner: they hold a slot and their name until they publish or fail. */
  private readonly pending = new Map<Owner, Set<{ name: string | null; cancelled: boolean }>>();
  private disposing: Promise<void> | undefined;

  /** Makes `backend` the one serving its type (a reloaded backend replaces the old one; sessions live on). */
  registerBackend(backend: TerminalBackend): void {
    if (typeof backend?.type !== 'string' || typeof backend.open !== 'function') {
      throw new DshError('INVALID_ARGUMENT', 'a terminal backend needs { type, open }.');
    }
    this.backends.set(backend.type, backend);
  }

  /** Removes `backend` if it still serves its type. Open sessions are not affected. */
  unregisterBackend(backend: TerminalBackend): void {
    if (this.backends.get(backend.type) === backend) this.backends.delete(backend.type);
  }

  /** Types that can be opened now. */
  backendTypes(): string[] {
    return [...this.backends.keys()];
  }

  /**
   * Opens a session; it is published (and gets an id) only once its backend finished setting it up.
   * @throws DshError `INVALID_ARGUMENT`, `TERMINAL_BACKEND_NOT_FOUND`, `TERMINAL_NAME_TAKEN`,
   *   `TERMINAL_LIMIT`, `DISPOSED`, or the backend's failure (e.g. `TERMINAL_CLEANUP_FAILED`).
   */
  async open(owner: Owner, options: { type: string; name?: string; cwd?: string; cols?: number; rows?: number }) {
    this.checkOwner(owner);
    const o = checkOpen(options);
    const backend = this.backends.get(o.type);
    if (!backend) {
      throw new DshError(
        'TERMINAL_BACKEND_NOT_FOUND',
        `No terminal backend "${o.type}"; available: ${this.backendTypes().join(', ') || 'none'}.`,
        {
          data: { type: o.type },
        },
      );
    }
    this.checkOpenable(owner, o.name);
    const slot = { name: o.name, cancelled: false };
    const mine = this.pending.get(owner) ?? new Set();
    mine.add(slot);
    this.pending.set(owner, mine);
    let session: TerminalSession;
    try {
      session = await backend.open({ owner, cwd: o.cwd, cols: o.cols, rows: o.rows });
    } finally {
      mine.delete(slot);
      if (mine.size === 0) this.pending.delete(owner);
    }
    if (this.disposing || slot.cancelled) {
      await session.close();
      throw new DshError('DISPOSED', 'the owner or the terminal service was disposed while the session opened.');
    }
    let id: TerminalId;
    do id = `term-${randomBytes(4).toString('hex')}` as TerminalId;
    while (this.entries.has(id) || this.closed.has(id));
    this.entries.set(id, {
      id,
      owner,
      name: o.name,
      type: o.type,
      session,
      createdAt: Date.now(),
      sending: null,
      typing: null,
      closing: null,
    });
    return { id, name: o.name, opening: session.opening };
  }

  /**
   * Types input (then Enter unless `submit: false`, then the named `keys`) and waits until the
   * session is ready again (or the timeout).
   * @throws DshError `TERMINAL_NOT_FOUND`, `TERMINAL_BUSY` (a send is in flight), `INVALID_ARGUMENT`
   *   (a bad field, or an unknown key name — the message lists the valid ones).
   */
  async send(
    owner: Owner,
    id: TerminalId | string,
    input: { text: string; timeoutMs: number; submit?: boolean; keys?: string[]; paste?: boolean },
  ): Promise<SendResult> {
    const entry = this.find(owner, id);
    const checked = checkSend(input);
    checkFree(entry);
    const sending = entry.session.send(checked);
    entry.sending = sending;
    let result: SendResult;
    try {
      result = await sending;
    } finally {
      entry.sending = null;
    }
    for (const listener of this.sendListeners) {
      try {
        listener(owner, { terminalId: entry.id, input: checked.text, result });
      } catch {
        // a listener's failure must not break the send
      }
    }
    return result;
  }

  /**
   * Keystrokes from a person at the keyboard, written as they are (no Enter added, no wait): a
   * typing turn that holds the terminal like a send until every key is written and
   * {@link TYPING_HOLD_MS} passed without a new one. What they print reaches the owner's next send
   * as `earlier`. A person's Ctrl-C is `cancel(…, { keyboard: true })`.
   * @throws DshError `TERMINAL_NOT_FOUND`, `TERMINAL_BUSY` (a send holds the terminal),
   *   `INVALID_ARGUMENT` (empty, or longer than MAX_TYPE_CHARS), `TERMINAL_TYPE_UNSUPPORTED`.
   */
  type(owner: Owner, id: TerminalId | string, data: string): void {
    const entry = this.find(owner, id);
    if (typeof data !== 'string' || data === '' || data.length > MAX_TYPE_CHARS) {
      throw new DshError('INVALID_ARGUMENT', `typed keys must be 1-${MAX_TYPE_CHARS} characters.`, {
        data: { field: 'data' },
      });
    }
    if (entry.sending) checkFree(entry);
    if (!entry.session.type) {
      throw new DshError('TERMINAL_TYPE_UNSUPPORTED', `Terminal ${entry.id} (type ${entry.type}) takes no typed keys.`);
    }
    this.turnOf(entry, owner).add(data, entry.session.type(data));
  }

  /** The terminal's typing turn, begun now when none runs. */
  private turnOf(entry: Entry, owner: Owner): TypingTurn {
    entry.typing ??= new TypingTurn(owner, entry.id, this.typeListeners, () => {
      entry.typing = null;
    });
    return entry.typing;
  }

  /** Calls `listener` when a person's typing turn ends, with the keys typed in it. Returns the unsubscribe. */
  onType(listener: TerminalTypeListener): () => void {
    this.typeListeners.add(listener);
    return () => this.typeListeners.delete(listener);
  }

  /** Calls `listener` after every send settles. Returns the unsubscribe. */
  onSend(listener: TerminalSendListener): () => void {
    this.sendListeners.add(listener);
    return () => this.sendListeners.delete(listener);
  }

  /**
   * Interrupts whatever runs in the foreground — with or without a send in flight — like Ctrl-C
   * at a real terminal (typed-ahead input is discarded), and waits for the terminal to be ready
   * again. Resolves with that result (a send in flight settles with it too), or null when nothing
   * runs: the shell is idle at its prompt. `keyboard: true` is a person's Ctrl-C: a key of their
   * typing turn (told to the typing listeners, e.g. the session log, as `\x03`), typed as it is
   * when nothing runs.
   * @throws DshError `TERMINAL_NOT_FOUND`, `INVALID_ARGUMENT` (a bad wait).
   */
  async cancel(
    owner: Owner,
    id: TerminalId | string,
    options: { timeoutMs?: number; keyboard?: boolean } = {},
  ): Promise<SendResult | null> {
    const entry = this.find(owner, id);
    const wait = checkWait(options.timeoutMs ?? DEFAULT_CANCEL_WAIT_MS);
    if (options.keyboard !== true) {
      entry.typing?.end(); // a model's cancel ends a person's typing turn too
      return this.interrupt(entry, wait);
    }
    // A person's Ctrl-C is a key of their typing turn: it interrupts what runs; at an idle
    // prompt (nothing to interrupt) it is typed as it is, and the shell clears its line.
    const turn = this.turnOf(entry, owner);
    turn.add('\x03', Promise.resolve());
    const result = await this.interrupt(entry, wait);
    if (result === null && entry.session.type) turn.add('', entry.session.type('\x03'));
    return result;
  }

  /** The session's cancel; its wait holds the terminal like a send. */
  private async interrupt(entry: Entry, wait: number): Promise<SendResult | null> {
    const cancelling = entry.session.cancel(wait);
    if (entry.sending) return cancelling; // the send in flight settles with it
    // The cancel's own wait holds the terminal like a send: another send meanwhile is TERMINAL_BUSY.
    entry.sending = cancelling;
    try {
      return await cancelling;
    } finally {
      if (entry.sending === cancelling) entry.sending = null;
    }
  }

  /**
   * Resizes the terminal (the PTY and its screen together); a send in flight goes on.
   * @throws DshError `TERMINAL_NOT_FOUND`, `INVALID_ARGUMENT` (a size outside [1, MAX_COLS] × [1, MAX_ROWS]),
   *   `TERMINAL_RESIZE_UNSUPPORTED` (the backend cannot), `TERMINAL_EXITED` (its shell is gone).
   */
  resize(owner: Owner, id: TerminalId | string, size: { cols: number; rows: number }): ScreenView {
    const entry = this.find(owner, id);
    const checked = checkSize(size);
    if (!entry.session.resize) {
      throw new DshError(
        'TERMINAL_RESIZE_UNSUPPORTED',
        `Terminal ${entry.id} (type ${entry.type}) cannot be resized.`,
        {
          data: { terminalId: entry.id },
        },
      );
    }
    if (entry.session.state() === 'exited') {
      throw new DshError(
        'TERMINAL_EXITED',
        `The shell of terminal ${entry.id} has exited; terminal_close it and open a new one.`,
        {
          data: { terminalId: entry.id },
        },
      );
    }
    entry.session.resize(checked.cols, checked.rows);
    return entry.session.screen();
  }

  /** What the terminal's screen shows now. @throws DshError `TERMINAL_NOT_FOUND`. */
  screen(owner: Owner, id: TerminalId | string): ScreenView {
    return this.find(owner, id).session.screen();
  }

  /**
   * Tells `listener` a snapshot of the terminal's screen, then everything it writes: for a person
   * watching (dsh web). It takes no turn: sends go on as before.
   * @throws DshError `TERMINAL_NOT_FOUND`, `TERMINAL_WATCH_UNSUPPORTED` (the backend cannot stream).
   */
  async watch(
    owner: Owner,
    id: TerminalId | string,
    listener: (event: TerminalWatchEvent) => void,
  ): Promise<TerminalWatch> {
    const entry = this.find(owner, id);
    if (!entry.session.watch) {
      throw new DshError('TERMINAL_WATCH_UNSUPPORTED', `Terminal ${entry.id} (type ${entry.type}) cannot be watched.`, {
        data: { terminalId: entry.id },
      });
    }
    return entry.session.watch(listener);
  }

  /**
   * Every owner's open terminals, oldest first, with their owner: the view of a person
   * supervising the composition (dsh web). Agents see only their own, through `list`.
   */
  overview(): Array<{ owner: Owner; info: TerminalInfo }> {
    return [...this.entries.values()].filter((e) => !e.closing).map((e) => ({ owner: e.owner, info: infoOf(e) }));
  }

  /** A page of the session's scrollback (independent of sends' deltas). @throws DshError `TERMINAL_NOT_FOUND`, `INVALID_ARGUMENT`. */
  scrollback(owner: Owner, id: TerminalId | string, page: { offset?: number; limit: number }): ScrollbackPage {
    return this.find(owner, id).session.scrollback(checkPage(page));
  }

  /**
   * Closes a session and waits for its cleanup. False while another close of it is in flight,
   * and once it is closed. @throws DshError `TERMINAL_NOT_FOUND` (unknown or foreign id).
   */
  async close(owner: Owner, id: TerminalId | string): Promise<boolean> {
    this.checkOwner(owner);
    if (typeof id === 'string' && this.closed.get(id) === owner) return false;
    const closing = typeof id === 'string' ? this.entries.get(id) : undefined;
    if (closing?.owner === owner && closing.closing) return false; // another close is in flight
    await this.closeEntry(this.find(owner, id));
    return true;
  }

  /** The owner's sessions, oldest first. */
  list(owner: Owner): TerminalInfo[] {
    this.checkOwner(owner);
    return [...this.entries.values()].filter((e) => e.owner === owner && !e.closing).map((e) => infoOf(e));
  }

  /** Closes every session of `owner` and waits for all cleanup. */
  async disposeOwner(owner: Owner): Promise<void> {
    this.checkOwner(owner);
    for (const slot of this.pending.get(owner) ?? []) slot.cancelled = true; // those sessions close as they publish
    await Promise.all([...this.entries.values()].filter((e) => e.owner === owner).map((e) => this.closeEntry(e)));
  }

  /** Closes every session (composition teardown). Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= Promise.all([...this.entries.values()].map((e) => this.closeEntry(e))).then(() => undefined);
    return this.disposing;
  }

  private closeEntry(entry: Entry): Promise<void> {
    entry.typing?.end();
    entry.closing ??= entry.session.close().finally(() => {
      this.entries.delete(entry.id);
      this.closed.set(entry.id, entry.owner);
      if (this.closed.size > MAX_CLOSED_REMEMBERED) this.closed.delete(this.closed.keys().next().value as string);
    });
    return entry.closing;
  }

  private checkOpenable(owner: Owner, name: string | null): void {
    if (this.disposing) throw new DshError('DISPOSED', 'the terminal service has been disposed.');
    const mine = [...this.entries.values()].filter((e) => e.owner === owner && !e.closing);
    checkSlot(
      mine,
      [...(this.pending.get(owner) ?? [])].filter((p) => !p.cancelled),
      name,
    );
  }

  private find(owner: Owner, id: TerminalId | string): Entry {
    this.checkOwner(owner);
    const entry = typeof id === 'string' ? this.entries.get(id) : undefined;
    if (!entry || entry.owner !== owner || entry.closing) {
      throw new DshError(
        'TERMINAL_NOT_FOUND',
        `No terminal "${String(id)}" (unknown, closed, or not yours); terminal_open starts one.`,
        {
          data: { terminalId: id },
        },
      );
    }
    return entry;
  }

  private checkOwner(owner: Owner): void {
    if (!isOwner(owner))
      throw new DshError('INVALID_ARGUMENT', 'terminals need an owner made by createAgent()/createOwner().');
  }
}
