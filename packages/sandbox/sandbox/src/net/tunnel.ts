/**
 * A connection the proxy let through: the program's socket joined to the destination's, each
 * side's end passed on so what is in flight is delivered, and the bytes counted.
 */
import type { Socket } from 'node:net';

/**
 * Joins `client` to `upstream` (after writing `rest`, what the program sent past its request)
 * until both have closed; then `ended(sent, received)` with the bytes each way. `cap`: bytes each
 * way at most (null: no limit); past it both are closed.
 */
export function joinSockets(
  client: Socket,
  upstream: Socket,
  rest: Buffer,
  cap: number | null,
  ended: (sent: number, received: number) => void,
  /** Bytes of the program's to pass on at most (a plain-HTTP request's body); the rest is dropped. @default all */
  clientBytes: number | null = null,
): void {
  upstream.on('error', () => upstream.destroy());
  client.on('error', () => client.destroy());
  if (cap !== null) {
    const check = (): void => {
      if (upstream.bytesRead > cap || upstream.bytesWritten > cap) {
        client.destroy();
        upstream.destroy();
      }
    };
    upstream.on('data', check);
    client.on('data', check);
  }
  let open = 2;
  const closed = (): void => {
    if (--open === 0) ended(upstream.bytesWritten, upstream.bytesRead);
  };
  // A side that closed first takes the other with it once that one has flushed.
  upstream.once('close', () => {
    client.end();
    closed();
  });
  client.once('close', () => {
    upstream.destroy();
    closed();
  });
  upstream.pipe(client);
  if (clientBytes === null) {
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
  } else {
    // Only the request's own body goes on: anything after it (a second request on the same
    // connection) would reach this destination unchecked and unrecorded.
    let left = clientBytes;
    const pass = (bytes: Buffer): void => {
      if (left <= 0) return;
      const part = bytes.subarray(0, left);
      left -= part.length;
      if (!upstream.write(part)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    };
    pass(rest);
    client.on('data', pass);
  }
  client.resume();
}
