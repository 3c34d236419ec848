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
  if (rest.length > 0) upstream.write(rest);
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}
