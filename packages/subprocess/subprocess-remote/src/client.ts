/**
 * The client end of a channel: requests with ids (each answered once, cancellable), notifications,
 * stream data, and events routed to the handle they name. When the channel is lost every
 * pending request is rejected with `WORLD_DISCONNECTED` and every handle is told.
 */
import type { Readable, Writable } from 'node:stream';
import { DshError } from '@dsh/core';
import type { Message } from './frames.js';
import { Peer } from './peer.js';
import type { ServerInfo } from './server.js';
import { fromWireError, PROTOCOL_VERSION, streamOf, type WireError } from './wire.js';

/** What a handle hears from the channel. */
export interface HandleListener {
  event(message: Message): void;
  data(stream: number, bytes: Buffer): void;
  /** The channel was lost; the handle settles with this error. */
  lost(error: DshError): void;
}

/** How long a lost channel's transport may take to say why it ended. */
export const LOSS_REASON_WAIT_MS = 1_000;

/** The error of a lost channel. */
export function disconnected(reason: string): DshError {
  return new DshError('WORLD_DISCONNECTED', `The execution world was lost: ${reason}`, { data: { reason } });
}

/** A channel's client end. */
export class RuntimeClient {
  private readonly peer: Peer;
  private nextId = 1;
  private nextHandle = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners = new Map<number, HandleListener>();
  private lostWith: DshError | null = null;
  /** The server's `hello` answer. Rejects when the channel is lost first. */
  readonly ready: Promise<ServerInfo>;
  /** Resolves with the loss error when the channel ends before `close()` (never rejects). */
  readonly lost: Promise<DshError>;
  private resolveLost!: (e: DshError) => void;
  private closing = false;

  /** @param describe says why the channel ended (awaited at most {@link LOSS_REASON_WAIT_MS}). */
  constructor(
    input: Readable,
    output: Writable,
    private readonly describe?: () => Promise<string>,
  ) {
    this.lost = new Promise((r) => {
      this.resolveLost = r;
    });
    this.peer = new Peer(input, output, {
      message: (m) => this.onMessage(m),
      data: (id, bytes) => {
        const { h, s } = streamOf(id);
        this.listeners.get(h)?.data(s, bytes);
      },
      closed: (reason) => void this.onClosed(reason),
    });
    this.ready = this.request('hello', { protocol: PROTOCOL_VERSION }) as Promise<ServerInfo>;
    this.ready.catch(() => undefined);
  }

  /** The loss error once the channel is gone, else null. */
  get lostError(): DshError | null {
    return this.lostWith;
  }

  /** A fresh handle id, listened to by `listener`. */
  register(listener: HandleListener): number {
    const h = this.nextHandle++;
    this.listeners.set(h, listener);
    if (this.lostWith) queueMicrotask(() => listener.lost(this.lostWith as DshError));
    return h;
  }

  unregister(h: number): void {
    this.listeners.delete(h);
  }

  /**
   * Sends a request; resolves with the server's value. An abort rejects at once (DshError
   * `ABORTED`) and tells the server to stop. @throws DshError the server's error, or `WORLD_DISCONNECTED`.
   */
  request(op: string, fields: Message = {}, signal?: AbortSignal): Promise<unknown> {
    if (this.lostWith) return Promise.reject(this.lostWith);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(id);
        this.notify('cancel', { target: id });
        reject(new DshError('ABORTED', `${op} was aborted.`));
      };
      this.pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.peer.send({ ...fields, op, id });
    });
  }

  notify(op: string, fields: Message = {}): void {
    if (!this.lostWith) this.peer.send({ ...fields, op });
  }

  sendData(id: number, bytes: Uint8Array): void {
    if (!this.lostWith) this.peer.sendData(id, bytes);
  }

  /** Ends the channel on purpose (after dispose): later losses are not reported as failures. */
  close(): void {
    this.closing = true;
    this.peer.end();
  }

  private onMessage(m: Message): void {
    if (m.t === 'res') {
      const waiter = this.pending.get(Number(m.id));
      if (!waiter) return;
      this.pending.delete(Number(m.id));
      if (m.ok) waiter.resolve(m.value);
      else waiter.reject(fromWireError(m.error as WireError));
      return;
    }
    if (m.t === 'ev') this.listeners.get(Number(m.h))?.event(m);
  }

  private async onClosed(reason: string | null): Promise<void> {
    let why = reason ?? (this.closing ? 'the channel was closed' : 'the channel ended');
    if (this.describe && !this.closing) {
      const told = await Promise.race([
        this.describe().catch(() => null),
        new Promise<null>((r) => setTimeout(() => r(null), LOSS_REASON_WAIT_MS).unref()),
      ]);
      if (told) why = told;
    }
    const error = disconnected(why);
    this.lostWith = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    for (const listener of this.listeners.values()) listener.lost(error);
    this.resolveLost(error);
  }
}
