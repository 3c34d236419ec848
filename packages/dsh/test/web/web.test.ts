/**
 * `dsh web` in a real browser (Debian's chromium through playwright-core): the token guards
 * every request and socket, a person types into a terminal and sees the echo, runs one-shot
 * commands (markers as badges) and background jobs (output growing), and Ctrl-C on the server
 * leaves no process behind, while closing the page ends nothing.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sleepers, tempDir, waitFor } from '../../../../test/support.js';
import { BIN } from '../mcp/helpers.js';
import { openPage, type Served, screenText, serve, shot, waitForScreen } from './helpers.js';

/** Status and headers of a GET of `url`'s path as written (not normalized), with optional headers. */
function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown> }> {
  const at = /^http:\/\/([^/:]+):(\d+)(\/.*)$/.exec(url);
  if (!at) throw new Error(`not a URL of the server: ${url}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: at[1], port: Number(at[2]), path: at[3], headers, method }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

/** How a WebSocket handshake ends: 'open', or the HTTP status it was refused with. */
function handshake(url: string, origin: string | undefined): Promise<string | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, origin ? { origin } : {});
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve('error'));
  });
}

/** The first message of `type` a new page connection gets. */
function firstMessage(web: Served, type: string): Promise<Record<string, unknown>> {
  const origin = web.url.replace(/\/t\/.*$/, '');
  const ws = new WebSocket(`${web.url.replace('http:', 'ws:')}ws`, { origin });
  return new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      if (message.type !== type) return;
      ws.close();
      resolve(message);
    });
    ws.once('error', reject);
  });
}

/** A WebSocket handshake on a raw socket that then reads nothing. */
async function stuckPage(url: string): Promise<Socket> {
  const at = /^http:\/\/([^/:]+):(\d+)(\/.*)$/.exec(url) as RegExpExecArray;
  const socket = connect(Number(at[2]), at[1] as string);
  await new Promise((r) => socket.once('connect', r));
  socket.write(
    [
      `GET ${at[3]}ws HTTP/1.1`,
      `Host: ${at[1]}:${at[2]}`,
      `Origin: http://${at[1]}:${at[2]}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      '',
      '',
    ].join('\r\n'),
  );
  await new Promise((r) => socket.once('data', r)); // 101 Switching Protocols
  socket.pause();
  return socket;
}

/** Every file under `dir`. */
function logFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f));
}

async function webServer(): Promise<Served> {
  return serve(['web', '--port', '0', '--no-log']);
}

describe('dsh web', () => {
  it('--dump-config prints the composition it would serve (as the seed checks: grep subprocess), and serves nothing', () => {
    const home = tempDir('dsh-web-dump-');
    const run = spawnSync(process.execPath, [BIN, 'web', '--dump-config', '--no-log', '--port', '8123'], {
      cwd: home,
      env: { ...process.env, HOME: home },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const dump = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(dump.preset).toBe('full');
    expect(dump.services).toEqual(expect.arrayContaining(['subprocess', 'shell', 'jobs', 'terminals']));
    expect(dump.web).toMatchObject({ host: '127.0.0.1', port: 8123, input: true });
    expect(run.stdout).toMatch(/subprocess/i);
    const bad = spawnSync(process.execPath, [BIN, 'web', '--port', 'http'], { env: { ...process.env, HOME: home } });
    expect(bad.status).toBe(2);
  });

  it('refuses every request and socket without the token, serves nothing but its assets, and sets a strict policy', async () => {
    const web = await webServer();
    const origin = web.url.replace(/\/t\/.*$/, '');
    const token = /\/t\/([0-9a-f]+)\//.exec(web.url)?.[1] as string;
    expect((await get(`${origin}/`)).status).toBe(401);
    expect((await get(`${origin}/assets/app.js`)).status).toBe(401);
    expect((await get(`${origin}/t/${'0'.repeat(token.length)}/`)).status).toBe(401);
    expect((await get(`${web.url}assets/../../../package.json`)).status).toBe(404);
    expect((await get(`${web.url}assets/index.ts`)).status).toBe(404);
    expect((await get(web.url.replace(/\/$/, ''))).status).toBe(308); // the page needs its slash
    expect((await get(`${origin}/`, {}, 'POST')).status).toBe(401); // the token first, whatever the method
    expect((await get(web.url, {}, 'POST')).status).toBe(405);
    // A page of another site whose name was rebound to 127.0.0.1 still names itself in Host.
    expect((await get(web.url, { host: 'evil.example:80' })).status).toBe(403);
    const page = await get(web.url, { origin: 'http://evil.example' });
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    const ws = `${web.url.replace('http:', 'ws:')}ws`;
    expect(await handshake(`${origin.replace('http:', 'ws:')}/ws`, origin)).toBe(401);
    expect(await handshake(ws.replace(token, 'f'.repeat(token.length)), origin)).toBe(401);
    expect(await handshake(ws, 'http://evil.example')).toBe(403);
    expect(await handshake(ws, undefined)).toBe(403);
    expect(await handshake(ws, origin)).toBe('open');
  });

  it('a person opens a terminal, types echo web-$((6*7)) and sees web-42, with nothing refused by the policy', async () => {
    const web = await webServer();
    const { page, violations, dir } = await openPage(web.url);
    await page.click('#open-terminal');
    await page.waitForSelector('[data-terminal-id] .xterm-rows');
    await waitForScreen(page, '$');
    await page.click('[data-terminal-id] .xterm');
    await page.keyboard.type('echo web-$((6*7))');
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'web-42');
    // The answer line is the shell's output, not the typed line (which holds no "web-42").
    expect((await screenText(page)).split('web-$((6*7))')[1]).toContain('web-42');
    await shot(page, dir, 'terminal');
    expect(violations).toEqual([]);
  });

  it('runs a one-shot command with its markers as badges, and a background job whose output grows', async () => {
    const web = await webServer();
    const { page, dir } = await openPage(web.url);
    await page.fill('#command', 'echo one-shot; exit 3');
    await page.click('#run');
    const badge = await page.waitForSelector('.result .badge');
    expect(await badge.textContent()).toBe('[exit code: 3]');
    expect(await badge.getAttribute('class')).toContain('bad');
    expect(await page.$eval('.result pre', (e) => e.textContent)).toBe('one-shot');
    await page.fill('#command', 'for i in $(seq 1 40); do echo tick-$i; sleep 0.2; done');
    await page.check('#background');
    await page.click('#run');
    const output = '[data-job-output]';
    await waitFor(async () => (await page.$eval(output, (e) => e.textContent).catch(() => ''))?.includes('tick-1'));
    const early = (await page.$eval(output, (e) => e.textContent)) ?? '';
    expect(early).not.toContain('tick-40');
    await waitFor(
      async () => (await page.$eval(output, (e) => e.textContent))?.includes('tick-8'),
      'the output to grow',
    );
    await waitFor(
      async () => (await page.$eval('.job-end', (e) => e.textContent))?.includes('[exit code: 0]'),
      'the end',
    );
    expect(await page.$eval(output, (e) => e.textContent)).toContain('tick-40');
    await shot(page, dir, 'jobs');
  });

  it('a terminal printing far more than the page keeps up with ends showing the same screen as the server', async () => {
    const web = await webServer();
    const { page } = await openPage(web.url);
    await page.click('#open-terminal');
    await waitForScreen(page, '$');
    await page.click('[data-terminal-id] .xterm');
    await page.keyboard.type('seq 1 300000; echo flood-$((1+1))-done');
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'flood-2-done'); // only the output says it so (the typed line says $((1+1)))
    const rows = await page.$$eval('[data-terminal-id] .xterm-rows > div', (r) => r.map((e) => e.textContent?.trim()));
    const end = rows.indexOf('flood-2-done');
    expect(rows.slice(end - 3, end)).toEqual(['299998', '299999', '300000']);
  });

  it('closing the page ends nothing; Ctrl-C on dsh web ends every process it started, even with a page that never answers', async () => {
    const logs = tempDir('dsh-web-logs-');
    const web = await serve(['web', '--port', '0', '--log-dir', logs]);
    const token = String(process.pid).slice(-3);
    const { page } = await openPage(web.url);
    await page.click('#open-terminal');
    await waitForScreen(page, '$');
    await page.click('[data-terminal-id] .xterm');
    await page.keyboard.type(`sleep 3001${token} & sleep 3002${token}`);
    await page.keyboard.press('Enter');
    await page.fill('#command', `sleep 3003${token}`);
    await page.check('#background');
    await page.click('#run');
    await waitFor(() => sleepers(token).size === 3, 'three sleepers');
    await page.close();
    // Another page, connected after the first closed, still sees the terminal running.
    const list = await firstMessage(web, 'terminals');
    expect((list.list as Array<{ state: string }>).map((t) => t.state)).toEqual(['running']);
    expect(sleepers(token).size).toBe(3);
    // A page that connected and then reads nothing (it would never answer a close).
    const stuck = await stuckPage(web.url);
    web.child.kill('SIGINT');
    web.child.kill('SIGINT'); // a second Ctrl-C must not cut the shutdown short
    const end = await web.exited;
    expect(end.code).toBe(130);
    await waitFor(() => sleepers(token).size === 0, 'every sleeper to end');
    // The composition was disposed: its session log ended cleanly (compressed).
    expect(logFiles(logs).some((f) => f.endsWith('session.jsonl.zstd'))).toBe(true);
    stuck.destroy();
  });
});
