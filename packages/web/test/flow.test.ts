/**
 * A page that falls behind: terminal output it has not acknowledged is bounded; past the bound
 * the stream pauses for that page alone, and once the page catches up its screen is sent again
 * from a fresh snapshot. Driven by a raw WebSocket client that acknowledges nothing until told.
 */
import { Composition, createOwner } from '@dsh/core';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { terminalPlugin } from '@dsh/terminal';
import { terminalBashPlugin } from '@dsh/terminal-bash';
import { serveWeb, WEB_UNACKED_MAX_CHARS, type WebServer } from '@dsh/web';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tempDir, waitFor } from '../../../test/support.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function served(): Promise<{ web: WebServer; composition: Composition }> {
  const composition = await Composition.create([
    subprocessLocalPlugin(),
    terminalPlugin(),
    terminalBashPlugin({ cwd: tempDir('dsh-web-flow-') }),
  ]);
  cleanups.push(() => composition.dispose());
  const web = await serveWeb({
    host: {
      ctx: composition.ctx,
      createAgent: (name) => createOwner(name),
      tools: composition.tools,
      onLogRecord: () => () => undefined,
      dumpConfig: () => ({ config: {} }),
    },
  });
  cleanups.push(() => web.close());
  return { web, composition };
}

describe('a page that falls behind', () => {
  it('gets at most the bound unacknowledged, then a fresh screen once it catches up', async () => {
    const { web } = await served();
    const origin = web.url.replace(/\/t\/.*$/, '');
    const ws = new WebSocket(`${web.url.replace('http:', 'ws:')}ws`, { origin });
    cleanups.push(async () => ws.close());
    const messages: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => messages.push(JSON.parse(String(d)) as Record<string, unknown>));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'open' }));
    const screens = () => messages.filter((m) => m.type === 'screen');
    await waitFor(() => screens().length === 1, 'the first screen');
    const id = String(screens()[0]?.id);
    await waitFor(() => String(screens()[0]?.data).includes('$'), 'the prompt');
    ws.send(JSON.stringify({ type: 'keys', id, data: 'seq 1 600000; echo flood-done\r' }));
    const outputChars = () =>
      messages.filter((m) => m.type === 'output').reduce((n, m) => n + String(m.data).length, 0);
    // The flood (about 4 MB) runs to its end while this page acknowledges nothing.
    const lists = () => messages.filter((m) => m.type === 'terminals').map((m) => JSON.stringify(m.list));
    await waitFor(() => lists().some((l) => l.includes('"foreground":"seq')), 'the flood to run');
    await waitFor(() => {
      const all = lists();
      const running = all.findIndex((l) => l.includes('"foreground":"seq'));
      return all.slice(running + 1).some((l) => l.includes('"foreground":null'));
    }, 'the shell back at its prompt');
    const received = outputChars() + String(screens()[0]?.data).length;
    expect(received).toBeLessThan(WEB_UNACKED_MAX_CHARS + 256 * 1024); // the bound, plus one write in flight
    const streamed = messages
      .filter((m) => m.type === 'output')
      .map((m) => String(m.data))
      .join('');
    expect(streamed).not.toContain('\n600000'); // the end never reached this page as output
    // Catching up: everything acknowledged brings the screen again, as it now stands.
    ws.send(JSON.stringify({ type: 'ack', id, chars: received }));
    await waitFor(() => screens().length === 2, 'a fresh screen');
    expect(String(screens()[1]?.data)).toContain('flood-done');
    expect(String(screens()[1]?.data)).toContain('600000');
  });
});
