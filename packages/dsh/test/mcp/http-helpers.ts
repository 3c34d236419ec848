/**
 * Test helpers for `dsh mcp --http`: the real CLI listening on a free loopback port, clients of
 * the official SDK over Streamable HTTP, and raw requests; everything ended after each test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach } from 'vitest';
import { BIN, isAlive, tempDir, waitFor } from './helpers.js';

/** A running `dsh mcp --http`. */
export interface HttpServer {
  /** The endpoint with the token in its path. */
  url: string;
  /** The endpoint without it. */
  endpoint: string;
  token: string;
  port: number;
  workspace: string;
  child: ChildProcess;
  stderr(): string;
}

const started: ChildProcess[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  for (const child of started.splice(0)) {
    const pid = child.pid;
    if (pid && pid > 1 && isAlive(pid)) child.kill('SIGTERM');
    if (pid) await waitFor(() => !isAlive(pid), 'dsh mcp --http exited');
  }
});

/** Starts `dsh mcp --http` with `args` and waits for its endpoint line. */
export async function startHttp(args: string[] = [], lineRe?: RegExp): Promise<HttpServer> {
  const home = tempDir('dsh-mcp-http-');
  const workspace = join(home, 'ws');
  mkdirSync(workspace);
  const child = spawn(
    process.execPath,
    [BIN, 'mcp', '--http', '--workspace', workspace, '--log-dir', join(home, 'logs'), ...args],
    { env: { ...process.env, HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  started.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  if (lineRe) {
    // A token from a file is not printed: only the endpoint is known.
    const found = await waitFor(() => lineRe.exec(err), 'endpoint line');
    const endpoint = found[1] as string;
    return { url: '', endpoint, token: '', port: Number(new URL(endpoint).port), workspace, child, stderr: () => err };
  }
  const line = await waitFor(
    () => /MCP over HTTP at (\S+) \(or (\S+) with Authorization: Bearer (\S+)\)/.exec(err),
    'endpoint line',
  );
  const url = line[1] as string;
  return {
    url,
    endpoint: line[2] as string,
    token: /\/t\/([^/]+)\/mcp$/.exec(url)?.[1] as string,
    port: Number(new URL(url).port),
    workspace,
    child,
    stderr: () => err,
  };
}

/** An SDK client connected to `server` with the bearer token. */
export async function httpClient(
  server: HttpServer,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'dsh-http-test', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(server.endpoint), {
    requestInit: { headers: { authorization: `Bearer ${server.token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** A raw HTTP request to the server's port: status, headers and body. */
export function raw(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path, headers: options.headers },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The JSON-RPC headers a POST needs. */
export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** An initialize request body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
