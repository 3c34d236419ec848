/**
 * The stdio transport of `dsh mcp`: newline-delimited JSON-RPC on a readable and a writable.
 * Unlike a bare line splitter it answers bad input instead of dropping it or closing:
 * - a line that is not JSON gets a parse error (-32700);
 * - valid JSON that is not a JSON-RPC message (or a batch) gets an invalid-request error (-32600);
 * - a line over {@link MAX_MESSAGE_BYTES} is skipped without buffering it and answered -32600;
 * - a request before the session opened (neither an `initialize` handshake nor a 2026-07-28
 *   request carrying its protocol version in `_meta`) is answered -32600, except `ping` and
 *   `server/discover`.
 * The server keeps serving after each of these. Writes keep their order and respect backpressure.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { MAX_MESSAGE_BYTES } from './limits.js';

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
    return this.write(`${JSON.stringify(message)}\n`);
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
    try {
      this.onmessage?.(msg as JSONRPCMessage);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
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

  private readonly onEnd = (): void => this.finish();
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
