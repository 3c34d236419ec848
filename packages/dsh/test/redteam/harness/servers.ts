/**
 * Services on the host that a world must not reach: a TCP server on loopback, a unix socket in
 * /run, one in the abstract namespace of the host's network namespace. Each counts the
 * connections it accepted (the host-side evidence) and answers each with one line.
 */
import { spawn } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { Host } from './host.js';

/** A listening host service. */
export interface Bait {
  /** Connections accepted so far. */
  count(): number;
  /** What a client connects to: a TCP port, a socket path, or `@name` for an abstract socket. */
  address: string;
}

function serve(host: Host, listen: (server: Server, ready: () => void) => void, address: () => string): Promise<Bait> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.on('error', () => undefined);
    socket.end('dsh-redteam bait\n');
  });
  host.defer(() => new Promise((r) => server.close(() => r(undefined))));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    listen(server, () => resolve({ count: () => count, address: address() }));
  });
}

/** A TCP server on 127.0.0.1 (a free port). */
export function tcpBait(host: Host): Promise<Bait> {
  let port = 0;
  return serve(
    host,
    (server, ready) =>
      server.listen(0, '127.0.0.1', () => {
        port = (server.address() as { port: number }).port;
        ready();
      }),
    () => String(port),
  );
}

/** A unix socket at `path`, connectable by every user (removed with the host). */
export function unixBait(host: Host, path: string): Promise<Bait> {
  host.defer(() => rmSync(path, { force: true }));
  return serve(
    host,
    (server, ready) =>
      server.listen(path, () => {
        chmodSync(path, 0o666);
        ready();
      }),
    () => path,
  );
}

/**
 * An abstract unix socket of the host's network namespace, `@name`. Served by Python: Node binds
 * abstract names padded to the full address length, which no ordinary client connects to.
 */
export async function abstractBait(host: Host, name: string): Promise<Bait> {
  const hits = join(host.root, `abstract-${name}.hits`);
  const py = [
    'import socket, sys',
    's = socket.socket(socket.AF_UNIX)',
    's.bind(sys.argv[1].replace("@", "\\0", 1))',
    's.listen(8)',
    'print("listening", flush=True)',
    'while True:',
    '    c, _ = s.accept()',
    '    open(sys.argv[2], "a").write("hit\\n")',
    '    c.sendall(b"dsh-redteam bait\\n")',
    '    c.close()',
  ].join('\n');
  const child = spawn('python3', ['-c', py, `@${name}`, hits], { stdio: ['ignore', 'pipe', 'inherit'] });
  host.defer(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => reject(new Error('the abstract socket server ended')));
    child.stdout?.once('data', () => resolve());
  });
  const count = (): number => (host.read(hits) ?? '').split('\n').filter(Boolean).length;
  return { count, address: `@${name}` };
}

/** Python that connects to a bait address (a port, a path, or `@abstract`) and prints its line. */
export function connectPy(address: string): string {
  const target = /^\d+$/.test(address)
    ? `s = socket.create_connection(('127.0.0.1', ${address}), timeout=5)`
    : `s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(${JSON.stringify(address.replace(/^@/, '\0'))})`;
  return `python3 -c "import socket; ${target.replace(/"/g, '\\"')}; print(s.recv(64).decode())"`;
}
