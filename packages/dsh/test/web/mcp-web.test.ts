/**
 * `dsh mcp --web`: a person watches the composition an MCP client drives. Opening the URL shows
 * the open terminals' screens with no click, a terminal opened later appears by itself, a
 * `terminal_send` made through MCP shows on the page, the agent's background job shows with its
 * output growing, the session log grows there, and typing is refused while the page is
 * read-only (the default), by the page and by the server; `--web-input` lets it type. The web
 * server stops with the MCP server.
 */
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../../../../test/support.js';
import { connect, textOf } from '../mcp/helpers.js';
import { openPage, screenText, shot, waitForScreen } from './helpers.js';

/** The page URL `dsh mcp --web` printed on stderr. */
async function pageUrl(stderr: () => string): Promise<string> {
  return waitFor(() => /(http:\/\/127\.0\.0\.1:\d+\/t\/[0-9a-f]+\/)/.exec(stderr())?.[1], 'the page URL');
}

function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, (res) => {
      res.resume();
      resolve(false);
    });
    req.on('error', () => resolve(true));
  });
}

/** What a raw page connection is told for keys, open, run and kill (the notice codes). */
async function refusals(url: string, terminal: string): Promise<string[]> {
  const origin = url.replace(/\/t\/.*$/, '');
  const ws = new WebSocket(`${url.replace('http:', 'ws:')}ws`, { origin });
  const codes: string[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as { type: string; code?: string };
    if (m.type === 'notice') codes.push(String(m.code));
  });
  await new Promise((r) => ws.once('open', r));
  for (const m of [
    { type: 'keys', id: terminal, data: 'touch /tmp/never\r' },
    { type: 'open' },
    { type: 'run', ref: 'r1', command: 'touch /tmp/never', background: false },
    { type: 'kill', id: 'job-00000000' },
  ])
    ws.send(JSON.stringify(m));
  await waitFor(() => codes.length === 4, 'four refusals');
  ws.close();
  return codes;
}

async function terminalOpen(c: Awaited<ReturnType<typeof connect>>): Promise<string> {
  const opened = await c.client.callTool({ name: 'terminal_open', arguments: {} });
  return (opened.structuredContent as { terminal_id: string }).terminal_id;
}

describe('dsh mcp --web', () => {
  it('shows the agent its terminals and sends live, its session log as it grows, and refuses typing (read-only)', async () => {
    const c = await connect({ args: ['--web'] });
    const url = await pageUrl(c.stderr);
    expect(c.stderr()).toContain('read-only');
    const first = await terminalOpen(c);
    const { page, violations, dir } = await openPage(url);
    // The open terminal's screen is there without a click.
    await page.waitForSelector(`[data-terminal-id="${first}"] .xterm-rows`);
    const sent = await c.client.callTool({
      name: 'terminal_send',
      arguments: { terminal_id: first, input: 'echo mcp-$((6*7))' },
    });
    expect(textOf(sent)).toContain('mcp-42');
    await waitForScreen(page, 'mcp-42', first);
    // A terminal opened later appears by itself.
    const second = await terminalOpen(c);
    await page.waitForSelector(`[data-terminal-id="${second}"] .xterm-rows`);
    // The agent's background job shows, its output growing.
    const job = await c.client.callTool({
      name: 'bash',
      arguments: { command: 'for i in $(seq 1 30); do echo agent-tick-$i; sleep 0.2; done', run_in_background: true },
    });
    const jobId = (job.structuredContent as { job_id: string }).job_id;
    const jobOutput = `[data-job-output="${jobId}"]`;
    await waitFor(async () =>
      (await page.$eval(jobOutput, (e) => e.textContent).catch(() => ''))?.includes('agent-tick-1'),
    );
    expect(await page.$eval(jobOutput, (e) => e.textContent)).not.toContain('agent-tick-30');
    await waitFor(
      async () => (await page.$eval(jobOutput, (e) => e.textContent))?.includes('agent-tick-5'),
      'it to grow',
    );
    // The session log grows on the page: the MCP calls are there.
    await waitFor(
      async () =>
        (await page.$$eval('[data-log-type="tool_call"] summary', (s) => s.map((e) => e.textContent))).some((t) =>
          t?.includes('terminal_send'),
        ),
      'the terminal_send in the log',
    );
    // Typing is refused: a notice says so, and nothing reaches the terminal.
    await page.click(`[data-terminal-id="${first}"] .xterm`);
    await page.keyboard.type('echo typed-by-person');
    await page.waitForSelector('#notices .notice');
    expect(await page.$eval('#notices', (e) => e.textContent)).toContain('read-only');
    await shot(page, dir, 'mcp-watch');
    const screen = await c.client.callTool({
      name: 'terminal_send',
      arguments: { terminal_id: first, input: 'echo still-mine' },
    });
    expect(textOf(screen)).not.toContain('typed-by-person');
    await waitForScreen(page, 'still-mine', first);
    expect(await screenText(page, first)).not.toContain('typed-by-person');
    expect(await page.$eval('#command', (e) => (e as HTMLInputElement).disabled)).toBe(true);
    expect(violations).toEqual([]);
    // The server refuses too, whatever a page sends: nothing types, opens, runs or kills.
    expect(await refusals(url, first)).toEqual(['WEB_READ_ONLY', 'WEB_READ_ONLY', 'WEB_READ_ONLY', 'WEB_READ_ONLY']);
    // The web server stops with the MCP server.
    await c.close();
    await waitFor(() => refused(url), 'the web server to stop');
  });

  it('with --web-input a person types into the agent terminal through the same exclusive send', async () => {
    const c = await connect({ args: ['--web', '--web-input'] });
    const url = await pageUrl(c.stderr);
    const id = await terminalOpen(c);
    const { page } = await openPage(url);
    await page.waitForSelector(`[data-terminal-id="${id}"] .xterm-rows`);
    await page.click(`[data-terminal-id="${id}"] .xterm`);
    await page.keyboard.type('echo person-$((40+2))');
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'person-42', id);
    // What the person typed is in the agent's session log, as typed by a person.
    await waitFor(async () => {
      const logged = await page.$$eval('[data-log-type="terminal_keys"] summary', (s) => s.map((e) => e.textContent));
      return logged.some((t) => t?.includes('person-'));
    }, "the person's keys in the log");
    // The agent's next send is told what happened meanwhile (earlier output).
    const next = await c.client.callTool({ name: 'terminal_send', arguments: { terminal_id: id, input: 'true' } });
    expect(`${textOf(next)}${JSON.stringify(next.structuredContent)}`).toContain('person-42');
    // While the agent's send holds the terminal, the person's keys are refused as busy.
    const holding = c.client.callTool({
      name: 'terminal_send',
      arguments: { terminal_id: id, input: 'sleep 2; echo agent-done', timeout_ms: 20_000 },
    });
    await waitFor(async () => (await screenText(page, id)).includes('sleep 2; echo agent-done'), 'the agent command');
    await page.keyboard.type('x');
    await waitFor(async () => (await page.$eval('#notices', (e) => e.textContent))?.includes('busy'), 'a busy notice');
    expect(textOf(await holding)).toContain('agent-done');
  });
});
