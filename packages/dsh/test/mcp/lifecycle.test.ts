/**
 * `dsh mcp` as a process: the start-up line on stderr, nothing but protocol on stdout, bad
 * protocol input answered while serving goes on, and a shutdown (stdin EOF or a signal) that
 * ends every process, job and terminal it started.
 */
import { compose } from 'dsh';
import { describe, expect, it } from 'vitest';
import { startLine } from '../../src/cli/mcp.js';
import { isAlive, waitFor } from './helpers.js';
import { INIT, initialized, type Raw, start } from './raw.js';

function call(raw: Raw, id: number, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  return raw.response(id);
}

function textOf(response: Record<string, unknown>): string {
  return ((response.result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

/** Opens a background job and a terminal that each hold a long-lived process; returns their pids. */
async function holdProcesses(raw: Raw): Promise<number[]> {
  const job = await call(raw, 10, 'bash', { command: 'sleep 300 & echo $!; wait', run_in_background: true });
  const jobId = (job.result as { structuredContent: { job_id: string } }).structuredContent.job_id;
  const jobPid = await waitFor(async () => {
    const out = await call(raw, 11 + Math.floor(Math.random() * 1e6), 'job_output', { job_id: jobId });
    return Number.parseInt(textOf(out), 10) || null;
  }, 'the job pid');
  const term = await call(raw, 20, 'terminal_open', {});
  const termId = (term.result as { structuredContent: { terminal_id: string } }).structuredContent.terminal_id;
  const sent = await call(raw, 21, 'terminal_send', { terminal_id: termId, input: 'sleep 300 & echo PID=$!' });
  const termPid = Number(/PID=(\d+)/.exec(textOf(sent))?.[1]);
  expect(isAlive(jobPid)).toBe(true);
  expect(isAlive(termPid)).toBe(true);
  return [jobPid, termPid];
}

describe('dsh mcp process', () => {
  it('says at start-up on stderr what it serves, and writes nothing but protocol to stdout', async () => {
    const raw = await initialized();
    expect(raw.stderr()).toMatch(
      /^dsh mcp \S+: preset full · workspace \S+ · sandbox workspace-write \(confined by bubblewrap, no network\)/,
    );
    await call(raw, 1, 'bash', { command: 'echo to-stdout; echo to-stderr >&2' });
    expect(raw.lines.every((l) => l.jsonrpc === '2.0')).toBe(true);
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
  });

  it('without a fence the start-up line says so, with the fix', async () => {
    const dsh = await compose({ config: { sandbox: { bwrapPath: '/nonexistent/bwrap' } } });
    try {
      expect(startLine(dsh.dumpConfig())).toMatch(
        /sandbox workspace-write \(NO FENCE: .*install bubblewrap.*danger-full-access/,
      );
    } finally {
      await dsh.dispose();
    }
  });

  it('answers malformed lines, early requests, unknown methods and oversized messages, and keeps serving', async () => {
    const raw = start();
    raw.sendRaw('this is not json\n');
    await waitFor(() => raw.lines.find((l) => (l.error as { code?: number })?.code === -32700), 'a parse error');
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(await raw.response(1)).toMatchObject({ error: { code: -32600 } });
    raw.send(INIT);
    await raw.response(0);
    raw.send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    expect(await raw.response(2)).toMatchObject({ error: { code: -32601 } });
    raw.sendRaw(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"pad":"${'x'.repeat(33 * 1024 * 1024)}"}}\n`);
    await waitFor(
      () => raw.lines.find((l) => l.id === null && (l.error as { message?: string })?.message?.includes('over')),
      'the oversize error',
    );
    raw.send([{ jsonrpc: '2.0', id: 4, method: 'tools/list' }]);
    await waitFor(() => raw.lines.filter((l) => l.id === null).length >= 3, 'the batch error');
    raw.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    expect(((await raw.response(5)).result as { tools: unknown[] }).tools.length).toBe(20);
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
  });

  it('stdin EOF ends every process, job and terminal it started, and exits 0', async () => {
    const raw = await initialized(['--sandbox', 'danger-full-access']);
    const pids = await holdProcesses(raw);
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const)('%s ends every process, job and terminal it started, and exits %i', async (signal, status) => {
    const raw = await initialized(['--sandbox', 'danger-full-access']);
    const pids = await holdProcesses(raw);
    raw.child.kill(signal);
    expect(await raw.exited).toBe(status);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });
});
