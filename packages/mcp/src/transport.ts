/**
 * The stdio transport of `dsh mcp`: newline-delimited JSON-RPC on a readable and a writable.
 * Unlike a bare line splitter it answers bad input instead of dropping it or closing:
 * - a line that is not JSON gets a parse error (-32700);
 * - valid JSON that is not a JSON-RPC message (or a batch) gets an invalid-request error (-32600);
 * - a line over {@link MAX_MESSAGE_BYTES} is skipped without buffering it and answered -32600;
 * - a request before the session opened (neither an `initialize` handshake nor a 2026-07-28
 *   request carrying its protocol version in `_meta`) is answered -32600, except `ping` and
 *   `server/discover`.
 * - a request whose `method` is not a string, whose `id` is not a string or a number (answered
 *   with `id: null`), or whose `params` is not an object is answered -32600;
 * - a request reusing the id of one still pending is answered -32600 (the first still runs);
 * - a last line without its newline at the end of the input is read like any other.
 * The server keeps serving after each of these. Writes keep their order and respect backpressure.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { EOF_ANSWER_WAIT_MS, MAX_MESSAGE_BYTES } from './limits.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** The `_meta` key a 2026-07-28 request names its protocol revision with. */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** Requests a client may send before the session is open. */
const BEFORE_OPEN = new Set(['initialize', 'ping', 'server/discover']);

type Id = string | number | null;

function idOf(value: Record<string, unknown>): Id {
  const id = value.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** A JSON-RPC transport over a pair of streams (stdin/stdout by default). */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Resolves when the input ended or `close()` was called. */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Skipping the rest of an oversized line. */
  private discarding = false;
  private opened = false;
  private isClosed = false;
  private writing: Promise<void> = Promise.resolve();
  /** Ids of the client's requests not answered yet. */
  private readonly pendingIds = new Set<string | number>();

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxMessageBytes: number = MAX_MESSAGE_BYTES,
  ) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    if (!('method' in m) && (typeof m.id === 'string' || typeof m.id === 'number')) this.pendingIds.delete(m.id);
    const written = this.write(`${JSON.stringify(message)}\n`);
    this.lastAnswered?.();
    return written;
  }

  async close(): Promise<void> {
    this.finish();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        this.hold(buf);
        return;
      }
      this.hold(buf.subarray(0, nl));
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  };

  /** Keeps a piece of the current line, or starts discarding it once it is too long. */
  private hold(piece: Buffer): void {
    if (this.discarding || piece.length === 0) return;
    if (this.pendingBytes + piece.length > this.maxMessageBytes) {
      this.discarding = true;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  private endLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.reject(null, INVALID_REQUEST, `Message over ${this.maxMessageBytes} bytes; it was not read.`);
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reject(null, PARSE_ERROR, 'Parse error: the line is not JSON.');
      return;
    }
    this.dispatch(value);
  }

  private dispatch(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.reject(null, INVALID_REQUEST, 'Invalid request: send one JSON-RPC 2.0 object per line (no batches).');
      return;
    }
    const msg = value as Record<string, unknown>;
    if ('method' in msg && !this.wellFormed(msg)) return;
    const isRequest = typeof msg.method === 'string' && 'id' in msg;
    if (msg.jsonrpc !== '2.0' || (typeof msg.method !== 'string' && !('id' in msg))) {
      if ('id' in msg || typeof msg.method === 'string') {
        this.reject(idOf(msg), INVALID_REQUEST, 'Invalid request: not a JSON-RPC 2.0 message.');
      }
      return;
    }
    if (isRequest && !this.opened) {
      const method = msg.method as string;
      const meta = (msg.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
      if (method === 'initialize' || typeof meta?.[PROTOCOL_VERSION_META] === 'string') this.opened = true;
      else if (!BEFORE_OPEN.has(method)) {
        this.reject(idOf(msg), INVALID_REQUEST, 'Server not initialized: send initialize first.');
        return;
      }
    }
    if (isRequest) {
      const id = msg.id as string | number;
      if (this.pendingIds.has(id)) {
        this.reject(id, INVALID_REQUEST, `Invalid request: id ${JSON.stringify(id)} is still pending; use a new id.`);
        return;
      }
      this.pendingIds.add(id);
    }
    try {
      this.onmessage?.(msg as JSONRPCMessage);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A request or notification of a valid shape; else it is answered -32600 (false). */
  private wellFormed(msg: Record<string, unknown>): boolean {
    const idOk = !('id' in msg) || typeof msg.id === 'string' || typeof msg.id === 'number';
    const problem =
      msg.jsonrpc !== '2.0'
        ? 'not a JSON-RPC 2.0 message'
        : typeof msg.method !== 'string'
          ? 'method must be a string'
          : !idOk
            ? 'id must be a string or a number'
            : 'params' in msg && (typeof msg.params !== 'object' || msg.params === null || Array.isArray(msg.params))
              ? 'params must be an object'
              : null;
    if (problem === null) return true;
    // A notification gets no answer; anything with an id (valid or not) does.
    if ('id' in msg) this.reject(idOk ? idOf(msg) : null, INVALID_REQUEST, `Invalid request: ${problem}.`);
    return false;
  }

  private reject(id: Id, code: number, message: string): void {
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  private write(text: string): Promise<void> {
    this.writing = this.writing.then(
      () =>
        new Promise<void>((resolve) => {
          if (this.isClosed || this.output.destroyed) return resolve();
          if (this.output.write(text)) return resolve();
          const done = (): void => {
            this.output.off('drain', done);
            this.output.off('close', done);
            resolve();
          };
          this.output.once('drain', done);
          this.output.once('close', done);
        }),
    );
    return this.writing;
  }

  private readonly onEnd = (): void => {
    if (this.isClosed) return;
    if (!(this.pendingBytes > 0 || this.discarding)) {
      this.finish();
      return;
    }
    // A last line without its newline is still a line: its request is answered before the close.
    const before = new Set(this.pendingIds);
    this.endLine();
    const last = [...this.pendingIds].filter((id) => !before.has(id));
    if (last.length === 0) {
      this.finish();
      return;
    }
    const timer = setTimeout(() => this.finish(), EOF_ANSWER_WAIT_MS);
    this.lastAnswered = () => {
      if (last.some((id) => this.pendingIds.has(id))) return;
      clearTimeout(timer);
      void this.writing.then(() => this.finish());
    };
  };
  /** Called after an answer is sent, while the input ended with a request still to answer. */
  private lastAnswered: (() => void) | null = null;
  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    this.finish();
  };
  private readonly onOutputError = (error: Error): void => {
    this.onerror?.(error); // a client that went away: nothing more can be written
    this.finish();
  };

  private finish(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
    this.resolveClosed();
    this.onclose?.();
  }
}
