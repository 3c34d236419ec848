/**
 * A world's way to its proxy (issue 24): the runtime server listens on the world's own loopback
 * and joins each connection to the proxy's unix socket, bound into the world by the fence. The
 * world has no other network: programs reach the hosts its policy names through the proxy
 * variables, which the server sets for every command it starts.
 */
import { createServer, type Server, connect as unixConnect } from 'node:net';

/** The proxy variables a command of a world with a proxy at `port` gets (lower-case forms too). */
export function proxyEnv(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const socks = `socks5h://127.0.0.1:${port}`;
  const none = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    ALL_PROXY: socks,
    NO_PROXY: none,
    http_proxy: http,
    https_proxy: http,
    all_proxy: socks,
    no_proxy: none,
    // npm reads its own settings before the variables; pip and git read the variables.
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    // Node.js's own fetch and http read the variables only when asked (from 22.21 and 24).
    NODE_USE_ENV_PROXY: '1',
  };
}

/** Parses `PORT=PATH`; null when it is not that. */
export function parseForward(arg: string): { port: number; path: string } | null {
  const eq = arg.indexOf('=');
  const port = Number(arg.slice(0, eq));
  const path = arg.slice(eq + 1);
  if (eq < 1 || !Number.isInteger(port) || port < 1 || port > 65535 || !path.startsWith('/')) return null;
  return { port, path };
}

/** Listens on 127.0.0.1:`port` and joins every connection to the unix socket at `path`. */
export function forwardToProxy(port: number, path: string): Promise<Server> {
  // Half-open both ways: a program that ends its side after the request still gets the answer.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const proxy = unixConnect({ path, allowHalfOpen: true });
    const end = (): void => {
      client.destroy();
      proxy.destroy();
    };
    client.on('error', end);
    proxy.on('error', end);
    client.pipe(proxy);
    proxy.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      server.on('error', () => undefined);
      server.unref();
      resolve(server);
    });
  });
}
