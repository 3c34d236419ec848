import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose, type Dsh, parseShellResult } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { codeOf } from '../../../test/support.js';

const open: Dsh[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dsh-compose-'));
  dirs.push(d);
  return d;
}
async function make(config: Parameters<typeof compose>[0] = {}): Promise<Dsh> {
  const dsh = await compose({ preset: 'base', ...config, config: { workspace: tempDir(), ...config.config } });
  open.push(dsh);
  return dsh;
}
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !'ZX'.includes(stat.charAt(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

describe('compose', () => {
  it('mounts the base preset: ctx services, agents, tools', async () => {
    const dsh = await make();
    expect(dsh.ctx.keys()).toEqual(['subprocess', 'sandboxPolicy', 'sandbox', 'shell', 'jobs']);
    expect(dsh.tools.list().map((t) => t.name)).toEqual(['bash', 'job_output', 'job_kill', 'job_list']);
    const agent = dsh.createAgent('agent-1');
    const res = await dsh.tools.call(agent, 'bash', { command: 'echo hi' });
    expect(res).toMatchObject({ isError: false, data: { exit_code: 0 } });
  });

  it('rejects unknown presets and bad config keys with typed errors', async () => {
    expect(await codeOf(compose({ preset: 'fancy' as 'base' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(compose({ config: { shel: {} } as never }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(compose({ config: { sandbox: { mode: 'open' as 'read-only' } } }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(compose({ config: { shell: { timeoutMs: -1 } } }))).toBe('INVALID_ARGUMENT');
  });

  it('dumpConfig is plain JSON with plugins, config, and the sandbox mode and fence in force', async () => {
    const dsh = await make({ config: { shell: { timeoutMs: 5000 } } });
    const dumped = JSON.parse(JSON.stringify(dsh.dumpConfig()));
    expect(dumped.preset).toBe('base');
    expect(dumped.plugins.map((p: { name: string }) => p.name)).toEqual([
      'subprocess-local',
      'sandbox',
      'bash-local',
      'jobs',
      'tool-bash',
    ]);
    expect(dumped.config.shell.timeoutMs).toBe(5000);
    expect(dumped.sandbox).toMatchObject({ mode: 'workspace-write', network: false, fence: 'bubblewrap' });
    const missing = await make({ config: { sandbox: { bwrapPath: '/nonexistent/bwrap' } } });
    expect(missing.dumpConfig().sandbox).toMatchObject({ fence: null });
    expect(String((missing.dumpConfig().sandbox as { note: string }).note)).toMatch(/apt-get install bubblewrap/);
  });

  it("reload('bash-local') while a background job runs leaves it running; dispose() ends and joins it", async () => {
    const dsh = await make({ config: { sandbox: { mode: 'danger-full-access' } } }); // host pids via $$
    const agent = dsh.createAgent('a');
    const started = await dsh.tools.call(agent, 'bash', {
      command: 'echo $$; exec sleep 100',
      run_in_background: true,
    });
    const jobId = started.data.job_id as string;
    let pid = 0;
    for (let i = 0; i < 400 && !pid; i++) {
      pid = Number.parseInt((await dsh.tools.call(agent, 'job_output', { job_id: jobId })).text, 10) || 0;
      if (!pid) await new Promise((r) => setTimeout(r, 25));
    }
    expect(alive(pid)).toBe(true);
    await dsh.reload('bash-local');
    expect(alive(pid)).toBe(true);
    expect(dsh.ctx.jobs?.list(agent)[0]?.state).toBe('running');
    await dsh.dispose();
    expect(alive(pid)).toBe(false);
  });

  it('appends every tool call to the session log, whose results parse back to facts', async () => {
    const logDir = join(tempDir(), 'logs');
    const dsh = await make({ config: { sessionLog: { dir: logDir } } });
    const agent = dsh.createAgent('logger');
    await dsh.tools.call(agent, 'bash', { command: 'echo one; exit 5' });
    await dsh.tools.call(agent, 'bash', { command: '' });
    const { dir } = (dsh.dumpConfig().config as { sessionLog: { dir: string } }).sessionLog;
    const lines = readFileSync(join(dir, 'session.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['session_start', 'tool_call', 'tool_call']);
    expect(lines[1]).toMatchObject({ agent: 'logger', tool: 'bash', args: { command: 'echo one; exit 5' } });
    expect(parseShellResult(lines[1].text)).toMatchObject({ exitCode: 5, stdout: 'one\n' });
    expect(lines[2].is_error).toBe(true);
    expect(dsh.dumpConfig().config).toMatchObject({ sessionLog: { root: logDir } });
  });

  it('a tool call with an owner not made by createAgent is a harness bug: INVALID_ARGUMENT', async () => {
    const dsh = await make();
    expect(await codeOf(dsh.tools.call({ name: 'x' } as never, 'bash', { command: 'ls' }))).toBe('INVALID_ARGUMENT');
  });
});

describe('presets with terminals', () => {
  it('full = base tools + terminal tools; minimal = the persistent bash only', async () => {
    const full = await make({ preset: 'full' });
    expect(full.tools.list().map((t) => t.name)).toEqual([
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
    expect(full.ctx.keys()).toEqual(['subprocess', 'sandboxPolicy', 'sandbox', 'shell', 'jobs', 'terminals', 'lsp']);
    const minimal = await make({ preset: 'minimal' });
    expect(minimal.tools.list().map((t) => t.name)).toEqual(['bash']);
    const agent = minimal.createAgent('m');
    await minimal.tools.call(agent, 'bash', { command: 'cd /tmp' });
    expect(parseShellResult((await minimal.tools.call(agent, 'bash', { command: 'pwd' })).text).stdout).toBe('/tmp\n');
  });

  it("reload('terminal-bash') and reload('tool-terminal') keep sessions; dispose ends them", async () => {
    const dsh = await make({ preset: 'full', config: { sandbox: { mode: 'danger-full-access' } } }); // host pids via $$
    const agent = dsh.createAgent('t');
    const id = (await dsh.tools.call(agent, 'terminal_open', {})).data.terminal_id as string;
    const pid = Number.parseInt(
      (await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo $$' })).text,
      10,
    );
    await dsh.reload('terminal-bash');
    await dsh.reload('tool-terminal');
    const again = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo same' });
    expect(again.text).toContain('same');
    await dsh.disposeAgent(agent);
    expect(alive(pid)).toBe(false);
    await dsh.dispose();
  });
});
