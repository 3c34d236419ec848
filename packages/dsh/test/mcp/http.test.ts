/**
 * `dsh mcp --http` end to end: the real CLI on a loopback port, the official SDK's
 * StreamableHTTPClientTransport, and raw requests for what a client library hides (the guards,
 * a resumed stream). One session is one agent; a session that ends (DELETE, idle) ends its
 * processes.
 */
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sleepers } from '../../../../test/support.js';
import { textOf, waitFor } from './helpers.js';
import { type HttpServer, httpClient, INITIALIZE, POST_HEADERS, raw, startHttp } from './http-helpers.js';

/** A unique token for this test's sleeps (see `sleepers`). */
const token = (): string => String(randomInt(100_000, 999_999));

describe('dsh mcp --http', () => {
  it('two sessions are two agents: jobs and terminals of one are not the other’s', async () => {
    const server = await startHttp();
    const a = await httpClient(server);
    const b = await httpClient(server);
    expect(a.transport.sessionId).toBeTruthy();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const mark = token();
    const job = await a.client.callTool({
      name: 'bash',
      arguments: { command: `sleep 3${mark}`, run_in_background: true },
    });
    const jobId = (job.structuredContent as { job_id: string }).job_id;
    const term = await a.client.callTool({ name: 'terminal_open', arguments: {} });
    expect(term.isError).toBeFalsy();
    const listA = await a.client.callTool({ name: 'job_list', arguments: {} });
    expect(listA.structuredContent).toMatchObject({ jobs: [{ job_id: jobId }] });
    const listB = await b.client.callTool({ name: 'job_list', arguments: {} });
    expect((listB.structuredContent as { jobs: unknown[] }).jobs).toEqual([]);
    const termsB = await b.client.callTool({ name: 'terminal_list', arguments: {} });
    const termsA = await a.client.callTool({ name: 'terminal_list', arguments: {} });
    expect((termsA.structuredContent as { terminals: unknown[] }).terminals).toHaveLength(1);
    expect((termsB.structuredContent as { terminals: unknown[] }).terminals).toEqual([]);
    const echo = await b.client.callTool({ name: 'bash', arguments: { command: 'echo from-b' } });
    expect(textOf(echo)).toContain('from-b');
  });

  it('refuses a request without the token (401), for another Host or Origin (403); the token in the path works', async () => {
    const server = await startHttp();
    const path = new URL(server.endpoint).pathname;
    const host = `127.0.0.1:${server.port}`;
    const none = await raw(server.port, { path, headers: { ...POST_HEADERS, host }, body: INITIALIZE });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await raw(server.port, {
      path,
      headers: { ...POST_HEADERS, host, authorization: `Bearer ${'x'.repeat(server.token.length)}` },
      body: INITIALIZE,
    });
    expect(wrong.status).toBe(401);
    const auth = { authorization: `Bearer ${server.token}` };
    const rebound = await raw(server.port, {
      path,
      headers: { ...POST_HEADERS, ...auth, host: `evil.example:${server.port}` },
      body: INITIALIZE,
    });
    expect(rebound.status).toBe(403);
    const foreign = await raw(server.port, {
      path,
      headers: { ...POST_HEADERS, ...auth, host, origin: 'http://evil.example' },
      body: INITIALIZE,
    });
    expect(foreign.status).toBe(403);
    const inPath = await raw(server.port, {
      path: new URL(server.url).pathname,
      headers: { ...POST_HEADERS, host },
      body: INITIALIZE,
    });
    expect(inPath.status).toBe(200);
    expect(inPath.headers['mcp-session-id']).toBeTruthy();
    expect(inPath.body).toContain('"logging":{}');
  });

  it('DELETE ends the session at once, and its processes with it', async () => {
    const server = await startHttp();
    const { client, transport } = await httpClient(server);
    const mark = token();
    await client.callTool({ name: 'bash', arguments: { command: `sleep 3${mark}`, run_in_background: true } });
    await waitFor(() => sleepers(mark).size === 1, 'the job runs');
    const id = transport.sessionId as string;
    await transport.terminateSession();
    await waitFor(() => sleepers(mark).size === 0, "the session's job ended");
    expect((await pingIn(server, id)).status).toBe(404);
  });

  it('an idle session expires, and its processes with it', async () => {
    const server = await startHttp(['--idle-ms', '1500']);
    const { client, transport } = await httpClient(server);
    const mark = token();
    await client.callTool({ name: 'bash', arguments: { command: `sleep 3${mark}`, run_in_background: true } });
    await waitFor(() => sleepers(mark).size === 1, 'the job runs');
    const id = transport.sessionId as string;
    // The client goes away without DELETE (its event stream closes with it): the session is idle.
    await client.close();
    await waitFor(() => sleepers(mark).size === 0, "the idle session's job ended");
    expect((await pingIn(server, id)).status).toBe(404);
  });

  it('a job that ends between calls is told as a log message, and a resumed stream replays it', async () => {
    const server = await startHttp();
    const { base, inSession } = await rawSession(server);
    const gate = (name: string) => `while [ ! -e ${name} ]; do sleep 0.05; done`;
    const startJob = async (id: number, command: string): Promise<string> => {
      const call = {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command, run_in_background: true } },
      };
      const text = await (await fetch(base, { method: 'POST', headers: inSession, body: JSON.stringify(call) })).text();
      const jobId = /"job_id":"(job-[^"]+)"/.exec(text)?.[1];
      expect(jobId).toBeTruthy();
      return jobId as string;
    };
    /** Events of a standalone stream (from `after` when given) until `until` shows; `opened` runs once it is open. */
    const streamUntil = async (until: string, after?: string, opened?: () => void): Promise<string> => {
      const stop = new AbortController();
      const res = await fetch(base, {
        headers: { ...inSession, accept: 'text/event-stream', ...(after ? { 'last-event-id': after } : {}) },
        signal: stop.signal,
      });
      expect(res.status).toBe(200);
      opened?.();
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      try {
        return await waitFor(async () => {
          const { value } = await reader.read();
          text += new TextDecoder().decode(value ?? new Uint8Array());
          return text.includes(until) ? text : null;
        }, `the stream showed ${until}`);
      } finally {
        stop.abort();
      }
    };
    const jobState = async (id: number, jobId: string): Promise<string> => {
      const call = {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'job_output', arguments: { job_id: jobId } },
      };
      const text = await (await fetch(base, { method: 'POST', headers: inSession, body: JSON.stringify(call) })).text();
      return /"state":"(\w+)"/.exec(text)?.[1] ?? '';
    };
    // A job that ends while the stream is open: told on it, with an event id.
    const first = await startJob(3, `${gate('go1')}; echo one`);
    const seen = await streamUntil(first, undefined, () => writeFileSync(join(server.workspace, 'go1'), ''));
    expect(seen).toContain('notifications/message');
    expect(seen).toContain('job_ended');
    const lastId = [...seen.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]).pop() as string;
    expect(lastId).toBeTruthy();
    // The next ends while no stream is open: a stream resumed from the last event replays it.
    const second = await startJob(4, `${gate('go2')}; echo two`);
    writeFileSync(join(server.workspace, 'go2'), '');
    let n = 10;
    await waitFor(async () => (await jobState(n++, second)) === 'succeeded', 'the second job ended');
    const replayed = await streamUntil(second, lastId);
    expect(replayed).toContain('job_ended');
    expect(replayed).not.toContain(first);
  });

  it('logging/setLevel holds per session: below the level nothing is sent', async () => {
    const server = await startHttp();
    const { base, inSession } = await rawSession(server);
    const post = async (body: object): Promise<string> =>
      (await fetch(base, { method: 'POST', headers: inSession, body: JSON.stringify(body) })).text();
    expect(await post({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'warning' } })).toContain(
      '"result":{}',
    );
    const stop = new AbortController();
    const stream = await fetch(base, { headers: { ...inSession, accept: 'text/event-stream' }, signal: stop.signal });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let n = 10;
    const run = async (command: string): Promise<string> => {
      const text = await post({
        jsonrpc: '2.0',
        id: n++,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command, run_in_background: true } },
      });
      const jobId = /"job_id":"(job-[^"]+)"/.exec(text)?.[1] as string;
      await waitFor(async () => {
        const out = await post({
          jsonrpc: '2.0',
          id: n++,
          method: 'tools/call',
          params: { name: 'job_output', arguments: { job_id: jobId } },
        });
        return /"state":"(succeeded|failed)"/.test(out);
      }, `job ${jobId} ended`);
      return jobId;
    };
    const quiet = await run('true'); // info: below the level
    const loud = await run('exit 3'); // warning
    let text = '';
    try {
      await waitFor(async () => {
        const { value } = await reader.read();
        text += new TextDecoder().decode(value ?? new Uint8Array());
        return text.includes(loud);
      }, 'the warning arrived');
    } finally {
      stop.abort();
    }
    expect(text).toContain('"level":"warning"');
    expect(text).not.toContain(quiet);
  });
});

/** An initialized session opened with raw requests: the endpoint and the headers of its requests. */
async function rawSession(server: HttpServer): Promise<{ base: string; inSession: Record<string, string> }> {
  const base = `http://127.0.0.1:${server.port}${new URL(server.endpoint).pathname}`;
  const headers = { ...POST_HEADERS, authorization: `Bearer ${server.token}` };
  const init = await fetch(base, { method: 'POST', headers, body: INITIALIZE });
  const session = init.headers.get('mcp-session-id') as string;
  await init.text();
  const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await (await fetch(base, { method: 'POST', headers: inSession, body })).text();
  return { base, inSession };
}

/** A ping carrying session `id`, raw. */
function pingIn(server: HttpServer, id: string) {
  return raw(server.port, {
    path: new URL(server.endpoint).pathname,
    headers: {
      ...POST_HEADERS,
      authorization: `Bearer ${server.token}`,
      host: `127.0.0.1:${server.port}`,
      'mcp-session-id': id,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
}
