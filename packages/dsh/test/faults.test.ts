/**
 * Faults through the whole stack: each ends in a typed error or a documented, lossless
 * behaviour, never a crash or a hang. (Substrate faults are tested in subprocess-local.)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose, type Dsh, parseShellResult } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, waitFor } from '../../../test/support.js';

const open: Dsh[] = [];
const dirs: string[] = [];
const mounts: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose().catch(() => undefined)));
  for (const m of mounts.splice(0)) spawnSync('umount', [m]);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-faults-'));
  dirs.push(dir);
  return dir;
}

async function make(
  config: NonNullable<Parameters<typeof compose>[0]>['config'],
  preset: 'base' | 'full' = 'full',
): Promise<Dsh> {
  const dsh = await compose({ preset, config });
  open.push(dsh);
  return dsh;
}

/** Pids of live processes whose command line contains `token`. */
function withToken(token: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(token) && isAlive(Number(name)))
        out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

describe('faults through the stack', () => {
  it('a terminal whose shell is killed from outside ends its send as session_exited, not a hang', async () => {
    const ws = workspace();
    const dsh = await make({ workspace: ws, sandbox: { mode: 'danger-full-access' } });
    const agent = dsh.createAgent('t');
    const id = (await dsh.tools.call(agent, 'terminal_open', {})).data.terminal_id as string;
    const shell = Number.parseInt(
      (await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo $$' })).text,
      10,
    );
    const pending = dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'sleep 60', timeout_ms: 60_000 });
    await waitFor(() => dsh.ctx.terminals?.list(agent)[0]?.foreground?.startsWith('sleep'), 'sleep in the foreground');
    process.kill(shell, 'SIGKILL');
    const r = await pending;
    expect(r.data).toMatchObject({ reason: 'session_exited', state: 'exited' });
    expect(r.text).toMatch(/killed by SIGKILL/);
    const again = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo hi' });
    expect(again.data).toMatchObject({ reason: 'session_exited' });
  });

  it('the workspace deleted under a terminal: the shell keeps answering; new work there is WORKDIR_NOT_FOUND', async () => {
    const ws = workspace();
    mkdirSync(join(ws, 'sub'));
    const dsh = await make({ workspace: ws, sandbox: { mode: 'danger-full-access' } });
    const agent = dsh.createAgent('t');
    const id = (await dsh.tools.call(agent, 'terminal_open', { workdir: 'sub' })).data.terminal_id as string;
    rmSync(join(ws, 'sub'), { recursive: true });
    const r = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'ls; echo "status=$?"' });
    expect(r.data).toMatchObject({ reason: 'stdin_read', state: 'running', exit_code: 0 });
    expect(r.text).toMatch(/status=0/);
    const opened = await dsh.tools.call(agent, 'terminal_open', { workdir: 'sub' });
    expect(opened.data.error).toEqual({ code: 'WORKDIR_NOT_FOUND' });
    const bash = await dsh.tools.call(agent, 'bash', { command: 'pwd', workdir: 'sub' });
    expect(bash).toMatchObject({ isError: true, data: { error: { code: 'WORKDIR_NOT_FOUND' } } });
  });

  it('the sandbox runner removed mid-session: the lost world is a runner failure, the next call SANDBOX_UNAVAILABLE', async () => {
    const ws = workspace();
    const bin = workspace();
    const bwrap = join(bin, 'bwrap');
    copyFileSync('/usr/bin/bwrap', bwrap);
    spawnSync('chmod', ['755', bwrap]);
    const dsh = await make({ workspace: ws, sandbox: { mode: 'workspace-write', bwrapPath: bwrap } }, 'base');
    const agent = dsh.createAgent('s');
    expect(parseShellResult((await dsh.tools.call(agent, 'bash', { command: 'echo in' })).text).exitCode).toBe(0);
    rmSync(bwrap);
    // The world is ended from the host (its server is out of the commands' reach) while a call runs.
    const pending = dsh.tools.call(agent, 'bash', { command: 'sleep 38.25' });
    await waitFor(() => spawnSync('pgrep', ['-f', 'sleep 38.25']).status === 0, 'the command running');
    const world = spawnSync('pgrep', ['-f', ws], { encoding: 'utf8' }).stdout.trim().split('\n').map(Number);
    for (const pid of world) if (pid > 1) process.kill(pid, 'SIGKILL');
    const lost = await pending;
    const facts = parseShellResult(lost.text);
    expect(facts.runnerFailed || facts.startError !== null).toBe(true);
    const next = await dsh.tools.call(agent, 'bash', { command: 'echo again' });
    expect(next).toMatchObject({ isError: true, data: { error: { code: 'SANDBOX_UNAVAILABLE' } } });
  });

  it('a full output disk: the result says the copy could not be written, and the tail is right', async () => {
    const ws = workspace();
    const out = workspace();
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', out]).status).toBe(0);
    mounts.push(out);
    const dsh = await make({ workspace: ws, sandbox: { mode: 'danger-full-access' }, output: { dir: out } }, 'base');
    const agent = dsh.createAgent('o');
    const r = await dsh.tools.call(agent, 'bash', {
      command: "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END",
    });
    const facts = parseShellResult(r.text);
    expect(facts.exitCode).toBe(0);
    expect(facts.stdout.endsWith('END\n')).toBe(true); // the million-character line is too long to show
    expect(facts.notes.join(' ')).toMatch(/complete copy could not be written \(ENOSPC/);
  });

  it('reload() and dispose() racing live calls: every call settles, typed, and nothing is left running', async () => {
    const ws = workspace();
    const token = `race${process.pid}x`;
    const dsh = await make({ workspace: ws, sandbox: { mode: 'danger-full-access' } });
    const agent = dsh.createAgent('r');
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 4; i++) {
      calls.push(dsh.tools.call(agent, 'bash', { command: `sleep 0.${i + 2}; echo ${token}-${i}` }));
    }
    calls.push(dsh.tools.call(agent, 'bash', { command: `exec sleep 3${token.length}`, run_in_background: true }));
    const id = (await dsh.tools.call(agent, 'terminal_open', {})).data.terminal_id as string;
    calls.push(
      dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: `sleep 30 # ${token}`, timeout_ms: 30_000 }),
    );
    const reloads = [dsh.reload('bash-local'), dsh.reload('tool-bash')];
    calls.push(dsh.tools.call(agent, 'bash', { command: `echo after-reload-${token}` }));
    await Promise.allSettled(reloads);
    const disposing = dsh.dispose();
    calls.push(dsh.tools.call(agent, 'bash', { command: 'echo too-late' }));
    const settled = await Promise.allSettled(calls);
    await disposing;
    for (const s of settled) {
      if (s.status === 'rejected') expect((s.reason as { code?: string }).code).toMatch(/^[A-Z_]+$/);
    }
    expect(withToken(token)).toEqual([]);
    expect(withToken('sleep 3')).toEqual([]);
  });
});
