/**
 * The web server's own rules, without a browser: keystrokes on a real terminal (Ctrl-C), who
 * may connect (Host, Origin), the page's policy, the badges, bad options, a close that does not
 * wait on a page, and the log as a page gets it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { Composition, createOwner } from '@dsh/core';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { terminalPlugin } from '@dsh/terminal';
import { terminalBashPlugin } from '@dsh/terminal-bash';
import {
  badged,
  contentSecurityPolicy,
  forPage,
  hostAllowed,
  KeyQueue,
  originAllowed,
  serveWeb,
  WEB_LOG_RECORD_MAX_CHARS,
  type WebHost,
} from '@dsh/web';
import { afterEach, describe, expect, it } from 'vitest';
import { codeOf, sleepers, tempDir, waitFor } from '../../../test/support.js';

const open: Composition[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

/** A host with no services: enough for the server's own checks. */
const bareHost: WebHost = {
  ctx: {} as WebHost['ctx'],
  createAgent: (name) => createOwner(name),
  tools: { list: () => [], call: async () => ({ text: '', isError: true, data: {} }) },
  onLogRecord: () => () => undefined,
  dumpConfig: () => ({ config: {} }),
};

describe('keystrokes', () => {
  it('typed into a real shell one key at a time, they run as one command; Ctrl-C interrupts and drops what was typed ahead', async () => {
    const composition = await Composition.create([
      subprocessLocalPlugin(),
      terminalPlugin(),
      terminalBashPlugin({ cwd: tempDir('dsh-web-keys-') }),
    ]);
    open.push(composition);
    const terminals = composition.ctx.get('terminals');
    const me = createOwner('person');
    const { id } = await terminals.open(me, { type: 'shell' });
    const refused: unknown[] = [];
    const keys = new KeyQueue(terminals, me, id, (e) => refused.push(e));
    for (const key of 'echo typed-$((6*7))\r') keys.type(key);
    await waitFor(() => terminals.screen(me, id).text.includes('typed-42'), 'the command to run');
    const token = String(process.pid).slice(-3);
    keys.type(`sleep 3009${token}\r`);
    await waitFor(() => sleepers(token).size === 1, 'the sleeper');
    keys.type('echo typed-ahead\r\x03');
    await waitFor(() => sleepers(token).size === 0, 'Ctrl-C to end the sleeper');
    await waitFor(() => terminals.list(me)[0]?.busy === false && terminals.list(me)[0]?.foreground === null);
    expect(terminals.screen(me, id).text).not.toMatch(/^typed-ahead$/m);
    // At an idle prompt Ctrl-C is typed: the shell drops the half-typed line. Each Ctrl-C is a typed key.
    const typed: string[] = [];
    terminals.onType((_o, e) => typed.push(e.input));
    keys.type('echo half-line\x03');
    await waitFor(() => typed.some((t) => t.endsWith('\x03')), 'the Ctrl-C in a typing turn');
    keys.type('echo whole-$((1+1))\r');
    await waitFor(() => terminals.screen(me, id).text.includes('whole-2'), 'the next command');
    expect(terminals.screen(me, id).text).not.toMatch(/^half-line/m);
    expect(refused).toEqual([]);
  });
});

describe('who may connect', () => {
  it('on loopback, Host must name loopback with this port; Origin must be the page itself', () => {
    expect(hostAllowed(req({ host: '127.0.0.1:8080' }), '127.0.0.1', 8080)).toBe(true);
    expect(hostAllowed(req({ host: 'localhost:8080' }), '127.0.0.1', 8080)).toBe(true);
    expect(hostAllowed(req({ host: '127.0.0.1:8081' }), '127.0.0.1', 8080)).toBe(false);
    expect(hostAllowed(req({ host: 'evil.example:8080' }), '127.0.0.1', 8080)).toBe(false);
    expect(hostAllowed(req({}), '127.0.0.1', 8080)).toBe(false);
    expect(hostAllowed(req({ host: 'box.lan:8080' }), '0.0.0.0', 8080)).toBe(true); // --host: the token guards it
    expect(originAllowed(req({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }))).toBe(true);
    expect(originAllowed(req({ host: '127.0.0.1:8080', origin: 'http://evil.example' }))).toBe(false);
    expect(originAllowed(req({ host: '127.0.0.1:8080' }))).toBe(false);
  });

  it('the policy allows scripts from the server only, and styles by nonce', () => {
    const csp = contentSecurityPolicy('abc');
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self' 'nonce-abc'");
    expect(csp).not.toMatch(/unsafe/);
  });

  it('bad options and a taken port are typed errors', async () => {
    expect(await codeOf(serveWeb({ host: bareHost, port: 70_000 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(serveWeb({ host: bareHost, token: 'short' }))).toBe('INVALID_ARGUMENT');
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      expect(await codeOf(serveWeb({ host: bareHost, port }))).toBe('WEB_LISTEN_FAILED');
    } finally {
      taken.close();
    }
    const web = await serveWeb({ host: bareHost });
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/t\/[0-9a-f]{48}\/$/);
    await web.close();
    await web.close(); // idempotent
  });
});

describe('closing the server', () => {
  it('does not wait on a page that never answers: its socket is cut after a short grace', {
    timeout: 10_000,
  }, async () => {
    const web = await serveWeb({ host: bareHost });
    const at = /^http:\/\/([^/:]+):(\d+)(\/.*)$/.exec(web.url) as RegExpExecArray;
    const socket = connect(Number(at[2]), at[1] as string);
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => undefined);
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `GET ${at[3]}ws HTTP/1.1\r\nHost: ${at[1]}:${at[2]}\r\nOrigin: http://${at[1]}:${at[2]}\r\nUpgrade: websocket\r\n` +
        'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await new Promise((r) => socket.once('data', r));
    socket.pause(); // reads nothing more: it would never answer a close frame
    await waitFor(() => web.pages === 1, 'the page to be attached');
    await web.close();
    socket.resume();
    await waitFor(() => closed, 'the socket to be cut');
  });
});

describe('badges', () => {
  it('split a rendered result into its body and its marker lines', () => {
    expect(badged('hi\n\n[stderr]\nerr\n\n[exit code: 3]')).toEqual({
      body: 'hi\n\n[stderr]\nerr',
      markers: ['[exit code: 3]'],
    });
    expect(badged('no markers here')).toEqual({ body: 'no markers here', markers: [] });
  });
});

describe('the log as a page gets it', () => {
  it('cuts each long text to its tail with the count cut, and long arguments to their start', () => {
    const record = {
      type: 'tool_call',
      text: `${'a'.repeat(10_000)}END`,
      args: { command: 'x'.repeat(10_000) },
      agent: 'a',
    };
    const page = forPage(record);
    expect(String(page.text).length).toBe(WEB_LOG_RECORD_MAX_CHARS);
    expect(String(page.text).endsWith('END')).toBe(true);
    expect(page.text_omitted).toBe(10_003 - WEB_LOG_RECORD_MAX_CHARS);
    expect(typeof page.args).toBe('string');
    expect(String(page.args).length).toBeLessThanOrEqual(WEB_LOG_RECORD_MAX_CHARS + 1);
    expect(forPage({ type: 'job_end', text: 'short' })).toEqual({ type: 'job_end', text: 'short' });
    expect(record.text.length).toBe(10_003); // the log's own record is untouched
  });
});
