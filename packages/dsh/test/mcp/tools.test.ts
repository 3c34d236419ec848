/**
 * `dsh mcp` end to end with the SDK's own client over stdio, in both protocol eras: listing
 * (schemas, output schemas, annotations, token cost), calls and their results, bad arguments,
 * unknown tools, background jobs, the yield hand-over, progress, cancellation and terminals.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseShellResult } from '@dsh/shell';
import { describe, expect, it } from 'vitest';
import { connect, ERAS, isAlive, textOf, waitFor } from './helpers.js';

/** Ceiling on what `tools/list` costs a model for the full preset (names, descriptions, input schemas). */
/** issue 23's budget for the full preset, the editing tools included. */
const TOOLS_LIST_BUDGET_CHARS = 9_000;
const README = readFileSync(fileURLToPath(new URL('../../../../README.md', import.meta.url)), 'utf8');

describe.each(ERAS)('dsh mcp (%s era)', (era) => {
  it('lists the full preset with input and output schemas, annotations, within the token budget', async () => {
    const { client } = await connect({ era });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'bash',
      'job_output',
      'job_kill',
      'job_list',
      'terminal_open',
      'terminal_send',
      'terminal_read',
      'terminal_resize',
      'terminal_cancel',
      'terminal_list',
      'terminal_close',
      'lsp_diagnostics',
      'lsp_definition',
      'lsp_references',
      'lsp_hover',
      'lsp_symbols',
      'lsp_rename',
      'lsp_workspace_symbols',
      'lsp_format',
      'lsp_code_actions',
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    const hint = (name: string) => tools.find((t) => t.name === name)?.annotations ?? {};
    for (const name of [
      'job_list',
      'job_output',
      'terminal_read',
      'lsp_diagnostics',
      'lsp_hover',
      'lsp_workspace_symbols',
    ])
      expect(hint(name).readOnlyHint).toBe(true);
    for (const name of ['bash', 'job_kill', 'terminal_close', 'lsp_rename', 'lsp_format', 'lsp_code_actions'])
      expect(hint(name).destructiveHint).toBe(true);
    const cost = JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    );
    expect(cost.length).toBeLessThanOrEqual(TOOLS_LIST_BUDGET_CHARS);
    // The README's figure is the measured one (within 5 %).
    const said = /`tools\/list` for the full preset costs about ([\d,]+) characters/.exec(README)?.[1];
    expect(said, 'the README names the cost of tools/list').toBeTruthy();
    expect(
      Math.abs(Number(said?.replace(/,/g, '')) - cost.length) / cost.length,
      `the measured cost is ${cost.length}`,
    ).toBeLessThanOrEqual(0.05);
  });

  it('a bash call returns the rendered text with its marker, isError, and the facts as structuredContent', async () => {
    const { client } = await connect({ era });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'echo hello; echo oops >&2; exit 3' } });
    expect(r.isError).toBe(false);
    expect(textOf(r)).toBe('hello\n\n[stderr]\noops\n\n[exit code: 3]');
    expect(r.structuredContent).toMatchObject({ exit_code: 3, signal: null, timed_out: false, stdout_bytes: 6 });
    expect(parseShellResult(textOf(r)).exitCode).toBe(3);
  });

  it('bad arguments are an isError result, never a JSON-RPC error; an unknown tool is an error', async () => {
    const { client } = await connect({ era });
    const bad = await client.callTool({ name: 'bash', arguments: { command: 42 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/Invalid arguments for bash/);
    expect(bad.structuredContent).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('a background job round trip: started, read until it ends, with its exit marker', async () => {
    const { client } = await connect({ era });
    const started = await client.callTool({
      name: 'bash',
      arguments: { command: 'echo first; sleep 0.3; echo second', run_in_background: true },
    });
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    expect(jobId).toMatch(/^job-/);
    let seen = '';
    const ended = await waitFor(async () => {
      const r = await client.callTool({ name: 'job_output', arguments: { job_id: jobId } });
      seen += textOf(r);
      return (r.structuredContent as { state: string }).state === 'succeeded' ? r : null;
    }, 'the job ended');
    expect(seen).toContain('first\n');
    expect(seen).toContain('second\n');
    expect(textOf(ended)).toContain('[exit code: 0]');
    const list = await client.callTool({ name: 'job_list', arguments: {} });
    expect(list.structuredContent).toMatchObject({ jobs: [{ job_id: jobId, state: 'succeeded' }] });
  });

  it('a foreground bash past the yield limit becomes a job: nothing lost, and its own deadline still applies', async () => {
    const { client } = await connect({ era, args: ['--yield-ms', '1200'] });
    const r = await client.callTool({
      name: 'bash',
      arguments: { command: 'for i in 1 2 3; do echo tick$i; sleep 0.6; done; echo done' },
    });
    const data = r.structuredContent as { job_id: string; yielded: boolean; state: string };
    expect(data).toMatchObject({ yielded: true, state: 'running' });
    expect(textOf(r)).toContain(`job_output {"job_id":"${data.job_id}"}`);
    let all = textOf(r);
    await waitFor(async () => {
      const out = await client.callTool({ name: 'job_output', arguments: { job_id: data.job_id } });
      all += `\n${textOf(out)}`;
      return (out.structuredContent as { state: string }).state !== 'running';
    }, 'the job ended');
    for (const line of ['tick1', 'tick2', 'tick3', 'done'])
      expect(all.split('\n').filter((l) => l === line)).toHaveLength(1);
    expect(all).toContain('[exit code: 0]');
    const short = await client.callTool({ name: 'bash', arguments: { command: 'sleep 30', timeout_ms: 2500 } });
    const shortId = (short.structuredContent as { job_id: string }).job_id;
    const end = await waitFor(async () => {
      const out = await client.callTool({ name: 'job_output', arguments: { job_id: shortId } });
      return (out.structuredContent as { state: string }).state === 'running' ? null : out;
    }, 'the deadline');
    expect(end.structuredContent).toMatchObject({ timed_out: true, state: 'failed' });
    expect(textOf(end)).toContain('[timed out after 2500 ms]');
  });

  it('progress is reported at most once a second with the elapsed time and the last line', async () => {
    const { client } = await connect({ era });
    const reports: { progress: number; message?: string }[] = [];
    const r = await client.callTool(
      { name: 'bash', arguments: { command: 'for i in 1 2 3; do echo step$i; sleep 1; done' } },
      { onprogress: (p) => reports.push(p) },
    );
    expect(textOf(r)).toContain('[exit code: 0]');
    expect(reports.length).toBeGreaterThanOrEqual(2);
    for (const [i, p] of reports.entries()) {
      expect(p.message).toMatch(/^\d+ s: step\d$/);
      if (i > 0) expect(p.progress - (reports[i - 1] as { progress: number }).progress).toBeGreaterThanOrEqual(1000);
    }
  });

  it('cancellation aborts the call through the deadline and ends the whole tree', async () => {
    // Unconfined, so the pid the command prints is a host pid this test can watch.
    const c = await connect({ era, args: ['--sandbox', 'danger-full-access'] });
    const pidFile = join(c.workspace, 'pid');
    const ac = new AbortController();
    const call = c.client.callTool(
      { name: 'bash', arguments: { command: `sleep 100 & echo $! > ${pidFile}; wait` } },
      { signal: ac.signal },
    );
    const sleeper = await waitFor(
      () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0),
      'the sleeper',
    );
    ac.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => !isAlive(sleeper), 'the tree ended');
    const after = await c.client.callTool({ name: 'bash', arguments: { command: 'echo still serving' } });
    expect(textOf(after)).toContain('still serving');
  });

  it('a terminal round trip', async () => {
    const { client } = await connect({ era });
    const opened = await client.callTool({ name: 'terminal_open', arguments: {} });
    const id = (opened.structuredContent as { terminal_id: string }).terminal_id;
    const sent = await client.callTool({
      name: 'terminal_send',
      arguments: { terminal_id: id, input: 'echo $((6*7))' },
    });
    expect(textOf(sent)).toContain('42');
    expect(sent.structuredContent).toMatchObject({ reason: 'stdin_read', exit_code: 0 });
    const closed = await client.callTool({ name: 'terminal_close', arguments: { terminal_id: id } });
    expect(closed.structuredContent).toMatchObject({ closed: true });
  });

  it('a hung call never blocks another', async () => {
    const { client } = await connect({ era });
    const ac = new AbortController();
    const hung = client.callTool({ name: 'bash', arguments: { command: 'sleep 60' } }, { signal: ac.signal });
    const quick = await client.callTool({ name: 'bash', arguments: { command: 'echo quick' } });
    expect(textOf(quick)).toContain('quick');
    ac.abort();
    await expect(hung).rejects.toThrow();
  });
});
