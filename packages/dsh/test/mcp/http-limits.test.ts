/**
 * The limits and bad input of the HTTP front door: sessions at once (503, RESOURCE_EXHAUSTED, and
 * a freed slot taken again), bad options as typed errors, and the CLI refusing `--http` options
 * without `--http`.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveMcpHttp } from '@dsh/mcp';
import { compose } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { codeOf, tempDir } from '../../../../test/support.js';
import { BIN } from './helpers.js';
import { INITIALIZE, POST_HEADERS, raw, startHttp } from './http-helpers.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo().catch(() => undefined);
});

/** A composition served over HTTP with room for one session, and what a raw request to it needs. */
async function oneSessionServer() {
  const dsh = await compose({ preset: 'minimal', config: { workspace: tempDir() } });
  cleanup.push(() => dsh.dispose());
  const server = await serveMcpHttp({ host: dsh, maxSessions: 1 });
  cleanup.push(() => server.close());
  const path = new URL(server.endpoint).pathname;
  const headers = { ...POST_HEADERS, authorization: `Bearer ${server.token}`, host: `127.0.0.1:${server.port}` };
  return { server, path, headers };
}

describe('dsh mcp --http limits', () => {
  it('past the session limit initialize is refused with 503 RESOURCE_EXHAUSTED; a DELETE frees the slot', async () => {
    const { server, path, headers } = await oneSessionServer();
    const first = await raw(server.port, { path, headers, body: INITIALIZE });
    expect(first.status).toBe(200);
    const second = await raw(server.port, { path, headers, body: INITIALIZE });
    expect(second.status).toBe(503);
    expect(JSON.parse(second.body).error.data).toMatchObject({ code: 'RESOURCE_EXHAUSTED', limit: 'sessions', max: 1 });
    const id = first.headers['mcp-session-id'] as string;
    const ended = await raw(server.port, {
      method: 'DELETE',
      path,
      headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(ended.status).toBe(200);
    expect(server.sessions()).toBe(0);
    const third = await raw(server.port, { path, headers, body: INITIALIZE });
    expect(third.status).toBe(200);
  });

  it('a batch is refused (400), and so is a first request that is not initialize (400, not the session limit)', async () => {
    const { server, path, headers } = await oneSessionServer();
    const batch = await raw(server.port, { path, headers, body: `[${INITIALIZE}]` });
    expect(batch.status).toBe(400);
    expect(batch.body).toMatch(/batches are not supported/);
    expect((await raw(server.port, { path, headers, body: INITIALIZE })).status).toBe(200);
    const ping = await raw(server.port, {
      path,
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    });
    expect(ping.status).toBe(400);
  });

  it('bad options are typed errors', async () => {
    const dsh = await compose({ preset: 'minimal', config: { workspace: tempDir() } });
    cleanup.push(() => dsh.dispose());
    expect(await codeOf(serveMcpHttp({ host: dsh, token: 'short' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(serveMcpHttp({ host: dsh, idleMs: 0 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(serveMcpHttp({ host: dsh, maxSessions: 1.5 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(serveMcpHttp({ host: {} as never }))).toBe('INVALID_ARGUMENT');
  });

  it('the CLI refuses --port, --host, --token-file and --idle-ms without --http, and an unreadable token file (exit 2)', () => {
    for (const args of [
      ['--port', '0'],
      ['--host', '127.0.0.1'],
      ['--token-file', '/nope'],
      ['--idle-ms', '5'],
    ]) {
      const r = spawnSync(process.execPath, [BIN, 'mcp', ...args], { encoding: 'utf8', input: '', timeout: 30_000 });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/needs --http/);
    }
    const bad = spawnSync(process.execPath, [BIN, 'mcp', '--http', '--token-file', '/nonexistent/token'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--token-file \/nonexistent\/token cannot be read/);
  });

  it('a token from --token-file works and is never printed', async () => {
    const dir = tempDir('dsh-token-');
    const secret = `tok-${'s3cr3t'.repeat(4)}`;
    writeFileSync(join(dir, 'token'), `${secret}\n`, { mode: 0o600 });
    const server = await startHttp(['--token-file', join(dir, 'token')], /MCP over HTTP at (\S+) with Authorization/);
    expect(server.stderr()).not.toContain(secret);
    const path = new URL(server.endpoint).pathname;
    const host = `127.0.0.1:${server.port}`;
    const ok = await raw(server.port, {
      path,
      headers: { ...POST_HEADERS, host, authorization: `Bearer ${secret}` },
      body: INITIALIZE,
    });
    expect(ok.status).toBe(200);
  });
});
