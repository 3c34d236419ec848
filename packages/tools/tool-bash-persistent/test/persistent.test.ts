import { readFileSync } from 'node:fs';
import { Composition, createOwner, type Owner, type ToolResult } from '@dsh/core';
import { parseShellResult } from '@dsh/shell';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { terminalPlugin } from '@dsh/terminal';
import { terminalBashPlugin } from '@dsh/terminal-bash';
import { toolBashPersistentPlugin } from '@dsh/tool-bash-persistent';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, tempDir, waitFor } from '../../../../test/support.js';

const open: Composition[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

async function rig() {
  const workspace = tempDir('dsh-pbash-');
  const c = await Composition.create([
    subprocessLocalPlugin(),
    terminalPlugin(),
    terminalBashPlugin({ cwd: workspace }),
    toolBashPersistentPlugin({ workspace, savedDir: tempDir('dsh-pbash-saved-') }),
  ]);
  open.push(c);
  const agent = createOwner('agent');
  const bash = (args: unknown, who: Owner = agent): Promise<ToolResult> => c.tools.call(who, 'bash', args);
  return { c, agent, bash, workspace };
}

describe('persistent bash tool', () => {
  it('cwd, env and functions persist between calls; results parse back to facts', async () => {
    const r = await rig();
    await r.bash({ command: 'mkdir -p sub && cd sub && export X=42 && f() { echo "f:$X:$(pwd)"; }' });
    const res = await r.bash({ command: 'f; exit_code_check() { return 7; }; exit_code_check' });
    expect(res.isError).toBe(false);
    expect(parseShellResult(res.text)).toMatchObject({ exitCode: 7, stdout: `f:42:${r.workspace}/sub\n` });
  });

  it('each agent has its own shell', async () => {
    const r = await rig();
    await r.bash({ command: 'export MINE=1' });
    const other = createOwner('agent');
    const probe = 'echo "$' + '{MINE:-unset}"'; // a shell expansion, not a template
    expect(parseShellResult((await r.bash({ command: probe }, other)).text).stdout).toBe('unset\n');
  });

  it('a hung command is interrupted at its deadline and the shell stays usable', async () => {
    const r = await rig();
    await r.bash({ command: 'export KEEP=yes' });
    const res = await r.bash({ command: 'sleep 100', timeout_ms: 300 });
    const p = parseShellResult(res.text);
    expect(p).toMatchObject({ timedOut: true, exitCode: 130 });
    expect(p.notes.join()).toMatch(/interrupted at its deadline/);
    expect(parseShellResult((await r.bash({ command: 'echo $KEEP' })).text).stdout).toBe('yes\n');
  });

  it('a command waiting for input is interrupted instead of hanging', async () => {
    const r = await rig();
    const res = await r.bash({ command: 'read -p "password: " pw; echo got' });
    const p = parseShellResult(res.text);
    expect(p.notes.join()).toMatch(/wait for input/);
    expect(p.exitCode).not.toBe(0);
    expect(parseShellResult((await r.bash({ command: 'echo fine' })).text)).toMatchObject({
      stdout: 'fine\n',
      exitCode: 0,
    });
  });

  it('after exit, the next call starts a fresh shell and says so', async () => {
    const r = await rig();
    const first = parseShellResult((await r.bash({ command: 'echo $$' })).text);
    const exited = await r.bash({ command: 'exit 4' });
    expect(parseShellResult(exited.text)).toMatchObject({ exitCode: 4 });
    const next = parseShellResult((await r.bash({ command: 'echo $$' })).text);
    expect(next.stdout).not.toBe(first.stdout);
    expect(isAlive(Number(first.stdout))).toBe(false);
  });

  it('a saved copy is called complete only when it is; the counts of what the terminal dropped are exact', async () => {
    const r = await rig();
    let total = 0;
    for (let i = 1; i <= 200_000; i++) total += String(i).length + 1;
    const big = parseShellResult((await r.bash({ command: 'seq 1 200000', timeout_ms: 60_000 })).text);
    expect(big.exitCode).toBe(0);
    const notes = big.notes.join('\n');
    expect(notes).not.toMatch(/all of it is in/);
    const saved = /its last (\d+) characters are in (\S+)/.exec(notes);
    const dropped = /the first (\d+) characters of the output were no longer kept/.exec(notes);
    expect(saved && dropped).toBeTruthy();
    const file = readFileSync(saved?.[2] as string, 'utf8');
    expect(file.length).toBe(Number(saved?.[1]));
    expect(file.length + Number(dropped?.[1])).toBe(total);
    expect(file.startsWith('\n') || /^\d+\n/.test(file)).toBe(true);
    expect(file.endsWith('\n200000\n')).toBe(true);
    const small = parseShellResult((await r.bash({ command: 'seq 1 30000' })).text);
    expect(small.notes.join('\n')).toMatch(/all of it is in/);
  });

  it('what a background job printed between calls comes at the start of the next result, marked', async () => {
    const r = await rig();
    const started = parseShellResult((await r.bash({ command: '(sleep 0.2; echo bg-$((6 * 7))) &' })).text);
    const pid = Number(/\[1\] (\d+)/.exec(started.stdout)?.[1]);
    expect(pid).toBeGreaterThan(1);
    await waitFor(() => !isAlive(pid), 'the background job to end');
    const next = parseShellResult((await r.bash({ command: 'echo now' })).text);
    // The job's end is told as it ends (set -b): its notice, once printed, is printed between calls too.
    expect(next.stdout).toMatch(
      /^\[printed since your last command:\]\nbg-42\n(\[1\]\+ +Done[^\n]*\n)?\[this command:\]\nnow\n$/,
    );
  });

  it('bad arguments are isError results', async () => {
    const r = await rig();
    expect((await r.bash({ command: '' })).data.error).toEqual({ code: 'INVALID_ARGUMENT' });
    expect((await r.bash({ command: 'ls', timeout_ms: 10_000_000 })).data.error).toEqual({ code: 'INVALID_ARGUMENT' });
  });
});

describe('persistent bash: regressions from review', () => {
  it('a network wait is not mistaken for a prompt: the command runs to its end', async () => {
    const r = await rig();
    const res = await r.bash({
      command: `python3 -c "import select,os; r,w=os.pipe(); select.select([r],[],[],1); print('ok')"`,
    });
    expect(parseShellResult(res.text)).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
  });

  it('an abort while the agent is being disposed does not crash the host; an aborted signal runs nothing', async () => {
    const r = await rig();
    await r.bash({ command: 'true' });
    const ac = new AbortController();
    const call = r.c.tools.call(r.agent, 'bash', { command: 'sleep 100' }, { signal: ac.signal });
    await new Promise((res) => setTimeout(res, 200));
    const disposing = r.c.ctx.get('terminals').disposeOwner(r.agent);
    ac.abort();
    await disposing;
    expect((await call).isError === true || (await call).isError === false).toBe(true);
    const pre = await r.c.tools.call(r.agent, 'bash', { command: 'touch never' }, { signal: AbortSignal.abort() });
    expect(pre).toMatchObject({ isError: true, data: { error: { code: 'ABORTED' } } });
  });

  it('parallel first calls share one shell', async () => {
    const r = await rig();
    await Promise.all([r.bash({ command: 'true' }), r.bash({ command: 'true' }).catch(() => undefined)]);
    expect(r.c.ctx.get('terminals').list(r.agent)).toHaveLength(1);
  });
});
