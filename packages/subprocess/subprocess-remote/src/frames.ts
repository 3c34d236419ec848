/**
 * Binary-safe framing of the channel: every frame is a 4-byte big-endian length, a 1-byte kind,
 * then the payload. Kind 0 carries one JSON message (UTF-8); kind 1 carries raw bytes of one
 * stream, prefixed by the stream's 4-byte id. Bytes are never re-encoded, so any output
 * (binary, invalid UTF-8, NULs) crosses unchanged.
 */
import { DshError } from '@dsh/core';

/** Largest frame accepted: bigger means a corrupt or hostile peer, not a message. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** Stream data is sent in pieces of at most this size, so no frame holds up the others for long. */
export const DATA_CHUNK_BYTES = 256 * 1024;

const KIND_JSON = 0;
const KIND_DATA = 1;
const HEADER = 5;

/** A JSON message of the channel protocol. */
export type Message = Record<string, unknown>;

/** One JSON message as a frame. */
export function jsonFrame(message: Message): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const frame = Buffer.allocUnsafe(HEADER + body.length);
  frame.writeUInt32BE(body.length + 1, 0);
  frame.writeUInt8(KIND_JSON, 4);
  body.copy(frame, HEADER);
  return frame;
}

/** Bytes of stream `id` as frames of at most {@link DATA_CHUNK_BYTES}. */
export function dataFrames(id: number, bytes: Uint8Array): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < bytes.length || (at === 0 && bytes.length === 0); at += DATA_CHUNK_BYTES) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + DATA_CHUNK_BYTES));
    const frame = Buffer.allocUnsafe(HEADER + 4 + piece.length);
    frame.writeUInt32BE(piece.length + 5, 0);
    frame.writeUInt8(KIND_DATA, 4);
    frame.writeUInt32BE(id, 5);
    frame.set(piece, 9);
    frames.push(frame);
    if (bytes.length === 0) break;
  }
  return frames;
}

/** Parses frames out of a byte stream, across chunk boundaries. */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes needed before the next frame can be read: the header, then the whole frame. */
  private need = 4;

  constructor(
    private readonly onMessage: (message: Message) => void,
    private readonly onData: (id: number, bytes: Buffer) => void,
  ) {}

  /**
   * Feeds bytes. @throws DshError `CHANNEL_PROTOCOL` for a frame that is too large, of an unknown
   * kind, or whose JSON does not parse (the channel is then unusable).
   */
  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.need) return; // nothing to copy until a whole frame is here
    const buf = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    let at = 0;
    for (;;) {
      if (buf.length - at < 4) {
        this.need = 4;
        break;
      }
      const length = buf.readUInt32BE(at);
      if (length < 1 || length > MAX_FRAME_BYTES) throw protocolError(`a frame of ${length} bytes`);
      if (buf.length - at - 4 < length) {
        this.need = 4 + length;
        break;
      }
      this.dispatch(buf.readUInt8(at + 4), buf.subarray(at + HEADER, at + 4 + length));
      at += 4 + length;
    }
    const rest = buf.subarray(at);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
  }

  private dispatch(kind: number, body: Buffer): void {
    if (kind === KIND_JSON) {
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch {
        throw protocolError('a JSON frame that does not parse');
      }
      if (typeof message !== 'object' || message === null) throw protocolError('a JSON frame that is not an object');
      this.onMessage(message as Message);
    } else if (kind === KIND_DATA) {
      if (body.length < 4) throw protocolError('a data frame without a stream id');
      this.onData(body.readUInt32BE(0), body.subarray(4));
    } else throw protocolError(`a frame of unknown kind ${kind}`);
  }
}

function protocolError(what: string): DshError {
  return new DshError(
    'CHANNEL_PROTOCOL',
    `The channel sent ${what}; it is not a dsh runtime channel, or it is corrupt.`,
  );
}
