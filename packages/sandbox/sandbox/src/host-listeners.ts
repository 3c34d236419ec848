/**
 * Whether a TCP port of this machine's loopback has a listener, from `/proc/net/tcp{,6}` of the
 * host's network namespace: the evidence that a world's "Connection refused" to that port is the
 * fence's doing (the host serves it; the world's own loopback does not), not the command's.
 */
import { readFileSync } from 'node:fs';

/** The state column of a listening socket in /proc/net/tcp. */
const LISTEN = '0A';

/** True when a TCP socket of this network namespace listens on `port`. */
export function hostListensOn(port: number): boolean {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (fields[3] !== LISTEN || !local) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) return true;
    }
  }
  return false;
}
