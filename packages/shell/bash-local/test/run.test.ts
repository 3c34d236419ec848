import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseShellResult, renderShellResult } from '@dsh/shell';
import { describe, expect, it } from 'vitest';
import { executor, isAlive, tempDir, waitFor } from './helpers.js';

describe('LocalBashExecutor.run', () => {
  it('runs bash -c and reports exit facts and both streams', async () => {
    const ex = executor();
    const r = await ex.run(ex.resolve({ command: 'echo out; echo err >&2; exit 3' }));
    expect(r).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false, startError: null });
    expect(r.stdout).toEqual({ text: 'out\n', truncated: false, totalBytes: 4, spillPath: null, keptBytes: 4 });
    expect(r.stderr.text).toBe('err\n');
    expect(parseShellResult(renderShellResult(r))).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('a process that traps TERM and exits 0 after a timeout reports exitCode 0 and timedOut', async () => {
    const ex = executor();
    const command = "trap 'echo trapped; exit 0' TERM; echo started; while true; do sleep 0.05; done";
    // Long enough for bash to install its trap before the TERM comes, even across a loaded ssh channel
    // (at 300 ms a CI run saw bash killed by SIGTERM before its trap was set).
    const r = await ex.run(ex.resolve({ command, timeoutMs: 2_000 }));
    expect(r).toMatchObject({ exitCode: 0, signal: null, timedOut: true, aborted: false });
    expect(r.stdout.text).toBe('started\ntrapped\n');
    const text = renderShellResult(r);
    expect(text).toContain('[timed out after 2000 ms]');
    expect(parseShellResult(text)).toMatchObject({ exitCode: 0, timedOut: true, aborted: false });
  });

  it('caller abort and timeout are exclusive: whichever fires first names the kill', async () => {
    const ex = executor();
    const ac = new AbortController();
    const running = ex.run(ex.resolve({ command: 'echo go; sleep 100', timeoutMs: 60_000 }), { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const aborted = await running;
    expect(aborted).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGTERM' });
    const ac2 = new AbortController();
    const timedOut = await ex.run(ex.resolve({ command: 'sleep 100', timeoutMs: 100 }), { signal: ac2.signal });
    ac2.abort();
    expect(timedOut).toMatchObject({ aborted: false, timedOut: true });
    const pre = await ex.run(ex.resolve({ command: 'echo never' }), { signal: AbortSignal.abort() });
    expect(pre).toMatchObject({ aborted: true, timedOut: false, exitCode: null, stdout: { text: '' } });
  });

  it('5 MB of output with a 10 kB cap: truncated, exact totalBytes, complete spill', async () => {
    const ex = executor({ maxOutputBytes: 10_000 });
    const r = await ex.run(ex.resolve({ command: "head -c 5000000 /dev/zero | tr '\\0' a" }));
    expect(r.exitCode).toBe(0);
    expect(r.stdout.truncated).toBe(true);
    expect(r.stdout.totalBytes).toBe(5_000_000);
    expect(r.stdout.text).toBe('a'.repeat(10_000));
    const spill = r.stdout.spillPath as string;
    expect(statSync(spill).size).toBe(5_000_000);
    expect(readFileSync(spill, 'latin1')).toBe('a'.repeat(5_000_000));
    expect(parseShellResult(renderShellResult(r))).toMatchObject({ truncated: true, spillPath: spill });
  });

  it('a leftover background grandchild neither hangs the run nor survives it', async () => {
    const ex = executor({ graceMs: 200 });
    const r = await ex.run(ex.resolve({ command: 'sleep 100 & echo $!; echo hi' }));
    const [pid, hi] = r.stdout.text.split('\n');
    expect(hi).toBe('hi');
    expect(r.exitCode).toBe(0);
    expect(isAlive(Number(pid))).toBe(false);
  });

  it('stdin is at EOF and there is no controlling terminal', async () => {
    const ex = executor();
    const r = await ex.run(
      ex.resolve({ command: 'read x; echo "read=$?"; cat /dev/tty; echo "tty=$?"', timeoutMs: 30_000 }),
    );
    expect(r.timedOut).toBe(false);
    expect(r.stdout.text).toBe('read=1\ntty=1\n');
    expect(r.stderr.text).toMatch(/\/dev\/tty/);
  });

  it('trusted stdin reaches the command', async () => {
    const ex = executor();
    const r = await ex.run(ex.resolve({ command: 'cat', stdin: 'line one\nline two' }));
    expect(r.stdout.text).toBe('line one\nline two');
  });

  it('dshEnv is merged after env, so plain entries cannot override managed ones', async () => {
    const ex = executor();
    const r = await ex.run(
      ex.resolve({
        command: 'echo "$DSH_JOB_ID $FOO $' + '{HOME-unset}"',
        env: { DSH_JOB_ID: 'forged', FOO: 'bar', HOME: undefined },
        dshEnv: { DSH_JOB_ID: 'managed' },
      }),
    );
    expect(r.stdout.text).toBe('managed bar unset\n');
  });

  it('runs in the workdir; a missing workdir is a result with startError, not a rejection', async () => {
    const ex = executor();
    const dir = tempDir();
    expect((await ex.run(ex.resolve({ command: 'pwd', workdir: dir }))).stdout.text).toBe(`${dir}\n`);
    const r = await ex.run(ex.resolve({ command: 'pwd', workdir: join(dir, 'missing') }));
    expect(r).toMatchObject({ exitCode: null, signal: null, startError: { code: 'CWD_NOT_FOUND' } });
    expect(parseShellResult(renderShellResult(r)).startError?.code).toBe('CWD_NOT_FOUND');
  });

  it('rejects only for infrastructure failure (no bash)', async () => {
    const ex = executor({ bash: '/nonexistent/bash' });
    await expect(ex.run(ex.resolve({ command: 'true' }))).rejects.toMatchObject({ code: 'EXECUTABLE_NOT_FOUND' });
  });

  it('refuses a confined mode without a sandbox: SANDBOX_UNAVAILABLE, never unconfined', async () => {
    const ex = executor();
    const dir = tempDir();
    const spec = ex.resolve({
      command: `touch ${dir}/escaped`,
      sandbox: { mode: 'workspace-write', writableRoots: [dir], network: false },
    });
    await expect(ex.run(spec)).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    const bg = ex.start(spec); // a background process settles with the same fact
    expect(await bg.done).toMatchObject({ exitCode: null, startError: { code: 'SANDBOX_UNAVAILABLE' } });
    expect(bg.readOutput().text).toMatch(/SANDBOX_UNAVAILABLE/);
    expect(() => statSync(join(dir, 'escaped'))).toThrow();
    const full = ex.resolve({
      command: 'true',
      sandbox: { mode: 'danger-full-access', writableRoots: [], network: true },
    });
    expect((await ex.run(full)).exitCode).toBe(0);
  });

  it('never leaves processes behind when killed by timeout', async () => {
    const ex = executor({ graceMs: 100 });
    const r = await ex.run(ex.resolve({ command: 'trap "" TERM; sleep 100 & echo $!; wait', timeoutMs: 200 }));
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    await waitFor(() => !isAlive(Number(r.stdout.text.trim())), 'grandchild gone');
  });
});
