/**
 * The page's HTTP side: a fixed set of assets (the page, its script and styles, xterm.js), each
 * read once at start; nothing else on disk is ever served. Every response carries a strict
 * Content-Security-Policy (scripts from this server only, no inline script; the terminal's own
 * style elements are allowed by a per-page nonce), no CORS headers, no caching, no referrer.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { hostAllowed, splitPath, tokenMatches } from './auth.js';

interface Asset {
  type: string;
  body: Buffer;
}

const TYPES = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
} as const;

/** The assets by the name they are served under. */
function loadAssets(): { page: string; assets: Map<string, Asset> } {
  // Found through the package (not this file): the dsh command line runs this code from its bundle.
  const pkg = createRequire(import.meta.url).resolve('@dsh/web/package.json');
  const own = join(dirname(pkg), 'assets');
  const xterm = dirname(createRequire(pkg).resolve('@xterm/xterm/package.json'));
  const files: Array<[string, string, keyof typeof TYPES]> = [
    ['app.js', join(own, 'app.js'), 'js'],
    ['dom.js', join(own, 'dom.js'), 'js'],
    ['lists.js', join(own, 'lists.js'), 'js'],
    ['terminals.js', join(own, 'terminals.js'), 'js'],
    ['app.css', join(own, 'app.css'), 'css'],
    ['favicon.svg', join(own, 'favicon.svg'), 'svg'],
    ['xterm.js', join(xterm, 'lib', 'xterm.js'), 'js'],
    ['xterm.css', join(xterm, 'css', 'xterm.css'), 'css'],
  ];
  const assets = new Map(files.map(([name, file, kind]) => [name, { type: TYPES[kind], body: readFileSync(file) }]));
  return { page: readFileSync(join(own, 'index.html'), 'utf8'), assets };
}

/** The policy of a page whose terminal styles carry `nonce`. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, csp: string): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-security-policy': csp, 'content-type': type });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** The request handler of a server with `token`, listening on `listenHost:port()`. */
export function pageHandler(
  token: string,
  listenHost: string,
  port: () => number,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { page, assets } = loadAssets();
  const plain = 'text/plain; charset=utf-8';
  const strict = "default-src 'none'; frame-ancestors 'none'";
  return (req, res) => {
    const parts = splitPath(req.url);
    if (!parts || !tokenMatches(parts.token, token)) {
      send(res, 401, plain, '401: this page needs its token; open the URL that dsh printed.\n', strict);
      return;
    }
    if (!hostAllowed(req, listenHost, port())) {
      send(res, 403, plain, '403: address this server by its loopback name (the URL that dsh printed).\n', strict);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, plain, 'only GET is served here\n', strict);
      return;
    }
    if (parts.bare) {
      // `/t/<token>` without its slash: the page's relative URLs need it.
      res.writeHead(308, { ...COMMON_HEADERS, location: `/t/${parts.token}/`, 'content-security-policy': strict });
      res.end();
      return;
    }
    if (parts.rest === '/') {
      const nonce = randomBytes(16).toString('base64');
      send(res, 200, 'text/html; charset=utf-8', page.replaceAll('{{NONCE}}', nonce), contentSecurityPolicy(nonce));
      return;
    }
    const asset = parts.rest.startsWith('/assets/') ? assets.get(parts.rest.slice('/assets/'.length)) : undefined;
    if (!asset) {
      send(res, 404, plain, '404: no such page\n', strict);
      return;
    }
    send(res, 200, asset.type, asset.body, strict);
  };
}
