/**
 * Stand-ins for remote hosts, on this machine's loopback (issue 24's tests): one plain HTTP server
 * that answers for any name (static files of a directory under `/files/`, a directory's `index.html`, a greeting elsewhere) and
 * counts what it was asked, and one TLS server with a throwaway certificate made by openssl.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

/** A listening stand-in. */
export interface StandIn {
  port: number;
  /** `host path` of every request it got, in order. */
  hits: string[];
  close(): Promise<void>;
}

function listen(server: Server, hits: string[]): Promise<StandIn> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        hits,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    );
  });
}

/** A plain HTTP stand-in serving `root` under `/files/` and `hello HOST PATH` elsewhere. */
export function httpStandIn(root: string): Promise<StandIn> {
  const hits: string[] = [];
  const server = createHttp((req, res) => {
    hits.push(`${req.headers.host ?? ''} ${req.url ?? ''}`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/files/')) {
      let path = join(root, normalize(decodeURIComponent(url.pathname.slice('/files/'.length))));
      try {
        if (path.startsWith(root) && statSync(path).isDirectory()) path = join(path, 'index.html'); // an index page
        if (!path.startsWith(root) || !statSync(path).isFile()) throw new Error('not a file');
        if (path.endsWith('.html')) res.setHeader('Content-Type', 'text/html');
        res.end(readFileSync(path));
      } catch {
        res.statusCode = 404;
        res.end('not found\n');
      }
      return;
    }
    res.end(`hello ${req.headers.host ?? ''} ${req.url ?? ''}\n`);
  });
  return listen(server, hits);
}

/** A TLS stand-in for `name` (certificate in `dir/cert.pem`), answering `tls hello PATH`. */
export function tlsStandIn(dir: string, name: string): Promise<StandIn & { cert: string }> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=DNS:${name}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const hits: string[] = [];
  const server = createHttps({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    hits.push(`${req.headers.host ?? ''} ${req.url ?? ''}`);
    res.end(`tls hello ${req.url ?? ''}\n`);
  });
  return listen(server as unknown as Server, hits).then((s) => ({ ...s, cert }));
}
