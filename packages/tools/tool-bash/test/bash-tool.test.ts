import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseShellResult } from '@dsh/shell';
import { MODEL_OUTPUT_MAX_CHARS } from '@dsh/tool-bash';
import { describe, expect, it } from 'vitest';
import { rig } from './helpers.js';

describe('bash tool', () => {
  it('lists the four tools with strict JSON schemas', async () => {
    const r = await rig();
    const tools = r.composition.tools.list();
    expect(tools.map((t) => t.name)).toEqual(['bash', 'job_output', 'job_kill', 'job_list']);
    const bash = tools[0]?.inputSchema as { required: string[]; additionalProperties: boolean; properties: object };
    expect(bash.required).toEqual(['command']);
    expect(bash.additionalProperties).toBe(false);
    expect(Object.keys(bash.properties)).toEqual([
      'command',
      'timeout_ms',
      'workdir',
      'run_in_background',
      'sandbox_permissions',
      'justification',
    ]);
  });

  it('runs in the foreground and renders the markers; data carries the facts', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'echo hello; exit 4' });
    expect(res.isError).toBe(false);
    expect(res.text).toBe('hello\n\n[exit code: 4]');
    expect(res.data).toMatchObject({ exit_code: 4, signal: null, timed_out: false, aborted: false, truncated: false });
    expect(parseShellResult(res.text).exitCode).toBe(4);
  });

  const bad: [string, unknown][] = [
    ['empty command', { command: '   ' }],
    ['missing command', {}],
    ['non-string command', { command: 42 }],
    ['negative timeout', { command: 'ls', timeout_ms: -1 }],
    ['fractional timeout', { command: 'ls', timeout_ms: 1.5 }],
    ['string timeout', { command: 'ls', timeout_ms: '100' }],
    ['unknown argument', { command: 'ls', cwd: '/tmp' }],
    ['not an object', 'ls'],
  ];
  it.each(bad)('answers %s with an isError result that says what to do, never a throw', async (_n, args) => {
    const r = await rig();
    const res = await r.call('bash', args);
    expect(res.isError).toBe(true);
    expect(res.data.error).toEqual({ code: 'INVALID_ARGUMENT' });
    expect(res.text).toMatch(/^Invalid arguments for bash: .+ Fix them and call bash again\.$/);
  });

  it('requires a justification with require_escalated', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'ls', sandbox_permissions: 'require_escalated' });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/justification/);
    const ok = await r.call('bash', {
      command: 'true',
      sandbox_permissions: 'require_escalated',
      justification: 'needs /etc',
    });
    expect(ok.isError).toBe(false);
    expect(parseShellResult(ok.text).notes[0]).toMatch(/no escalation was needed/);
  });

  it('resolves workdir against the workspace and refuses a missing one', async () => {
    const r = await rig();
    mkdirSync(join(r.workspace, 'sub'));
    expect((await r.call('bash', { command: 'pwd' })).text).toBe(`${r.workspace}\n\n[exit code: 0]`);
    expect((await r.call('bash', { command: 'pwd', workdir: 'sub' })).text).toBe(
      `${r.workspace}/sub\n\n[exit code: 0]`,
    );
    const missing = await r.call('bash', { command: 'pwd', workdir: 'nope' });
    expect(missing).toMatchObject({ isError: true, data: { error: { code: 'WORKDIR_NOT_FOUND' } } });
    expect(missing.text).toMatch(/mkdir -p/);
  });

  it('a timeout is reported with the marker and a note on what to do', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'sleep 30', timeout_ms: 150 });
    expect(res.isError).toBe(false);
    expect(res.data).toMatchObject({ timed_out: true, aborted: false });
    const p = parseShellResult(res.text);
    expect(p).toMatchObject({ timedOut: true, timeoutMs: 150, signal: 'SIGTERM' });
    expect(p.notes.join()).toMatch(/run_in_background/);
  });

  it('truncated output names the spill file; the model never sees more than the cap', async () => {
    const r = await rig({ maxOutputBytes: 10_000 });
    const res = await r.call('bash', { command: 'seq 1 200000' });
    const p = parseShellResult(res.text);
    expect(p.truncated).toBe(true);
    expect(p.spillPath).toMatch(/\.spill\//);
    expect(p.notes.join()).toContain(p.spillPath as string);
    expect(p.stdout.endsWith('199999\n200000\n')).toBe(true);
    const big = await rig({ maxOutputBytes: 1_000_000 });
    const wide = await big.call('bash', { command: 'seq 1 100000' });
    expect(wide.text.length).toBeLessThan(MODEL_OUTPUT_MAX_CHARS + 1_000);
    expect(parseShellResult(wide.text)).toMatchObject({ truncated: true, exitCode: 0 });
  });

  it('an unknown tool is an isError result listing the tools', async () => {
    const r = await rig();
    const res = await r.call('bsh', { command: 'ls' });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/Available tools: bash, job_output, job_kill, job_list/);
  });
});

describe('bash tool: what the model is shown', () => {
  it('output over the model cap but under the tail: truncated in data, a saved complete copy named in a note', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'seq 1 100000' });
    expect(res.text.length).toBeLessThanOrEqual(MODEL_OUTPUT_MAX_CHARS);
    expect(res.data).toMatchObject({ truncated: true, display_truncated: true, exit_code: 0 });
    const saved = (res.data.saved_output as { stdout: string }).stdout;
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(saved, 'utf8')).toBe(`${Array.from({ length: 100_000 }, (_, i) => i + 1).join('\n')}\n`);
    const p = parseShellResult(res.text);
    expect(p).toMatchObject({ wellFormed: true, truncated: true, exitCode: 0 });
    expect(p.notes.join()).toContain(saved);
    expect(p.stdout.endsWith('99999\n100000\n')).toBe(true);
  });

  it('a cap that lands inside a surrogate pair never shows half of it, and the markers stay whole', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: "for i in $(seq 1 40000); do printf '\\360\\237\\230\\200'; done" });
    const first = res.text.charCodeAt(0);
    expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
    expect(res.text.length).toBeLessThanOrEqual(MODEL_OUTPUT_MAX_CHARS);
    expect(parseShellResult(res.text)).toMatchObject({ wellFormed: true, exitCode: 0, truncated: true });
  });

  it('a command over the one-argument limit is refused with what to do instead', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: `echo ${'x'.repeat(200_000)}` });
    expect(res).toMatchObject({ isError: true, data: { error: { code: 'INVALID_ARGUMENT' } } });
    expect(res.text).toMatch(/write the script to a file/);
  });
});

describe('bash tool: sandbox mode without a policy service', () => {
  it('holds to its configured restricted mode: no fence means refused, never unconfined', async () => {
    const { Composition, createOwner } = await import('@dsh/core');
    const { subprocessLocalPlugin } = await import('@dsh/subprocess-local');
    const { bashLocalPlugin } = await import('@dsh/bash-local');
    const { jobsPlugin } = await import('@dsh/jobs');
    const { toolBashPlugin } = await import('@dsh/tool-bash');
    const { tempDir } = await import('../../../../test/support.js');
    const workspace = tempDir();
    const c = await Composition.create([
      subprocessLocalPlugin(),
      bashLocalPlugin({ cwd: workspace }),
      jobsPlugin(),
      toolBashPlugin({ workspace, defaultMode: 'workspace-write' }),
    ]);
    try {
      const res = await c.tools.call(createOwner('a'), 'bash', { command: 'touch /var/tmp/dsh-never-unconfined' });
      expect(res).toMatchObject({ isError: true, data: { error: { code: 'SANDBOX_UNAVAILABLE' } } });
      const { existsSync } = await import('node:fs');
      expect(existsSync('/var/tmp/dsh-never-unconfined')).toBe(false);
    } finally {
      await c.dispose();
    }
  });
});
