import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/dsh.js', import.meta.url));
/** A private HOME per test file: session logs (on by default for `dsh run`) land there and are removed. */
const home = mkdtempSync(join(tmpdir(), 'dsh-cli-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = { ...process.env, HOME: home };
function dsh(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('dsh CLI', () => {
  it('run prints the rendered result and exits with the command status', () => {
    expect(dsh('run', '--', 'echo hello')).toMatchObject({ status: 0, stdout: 'hello\n\n[exit code: 0]\n' });
    expect(dsh('run', '--', 'echo', 'two', 'words')).toMatchObject({ stdout: 'two words\n\n[exit code: 0]\n' });
    expect(dsh('run', '--', 'exit 3').status).toBe(3);
  });

  it('exits 124 on timeout and 128+n for a signal', () => {
    const timedOut = dsh('run', '--timeout', '200', '--', 'sleep 30');
    expect(timedOut.status).toBe(124);
    expect(timedOut.stdout).toContain('[timed out after 200 ms]');
    expect(dsh('run', '--', 'kill -9 $$').status).toBe(137);
  });

  it('--json prints the result object; --workdir sets the directory', () => {
    const r = dsh('run', '--json', '--workdir', '/tmp', '--', 'pwd');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      isError: false,
      data: { exit_code: 0 },
      text: '/tmp\n\n[exit code: 0]',
    });
  });

  it('bad usage exits 2 with a message', () => {
    expect(dsh('run').status).toBe(2);
    const badTimeout = dsh('run', '--timeout', 'soon', '--', 'ls');
    expect(badTimeout.status).toBe(2);
    expect(badTimeout.stderr).toMatch(/positive integer/);
    const missing = dsh('run', '--workdir', '/nonexistent-dir', '--', 'ls');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/not an existing directory/);
  });

  it('--dump-config prints the composition as JSON', () => {
    const r = dsh('--dump-config');
    expect(r.status).toBe(0);
    const dumped = JSON.parse(r.stdout);
    expect(dumped.tools).toEqual(['bash', 'job_output', 'job_kill', 'job_list']);
    expect(dumped.services).toEqual(['subprocess', 'sandboxPolicy', 'sandbox', 'shell', 'jobs']);
    expect(dumped.sandbox).toMatchObject({ mode: 'workspace-write', fence: 'bubblewrap' });
  });
});

describe('dsh CLI signals', () => {
  it('SIGTERM to dsh run ends the command tree and exits 128+15', async () => {
    const { spawn } = await import('node:child_process');
    const { readFileSync, existsSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'dsh-cli-sig-'));
    const pidFile = join(dir, 'pid');
    let sleeper = 0;
    try {
      const child = spawn(process.execPath, [bin, 'run', '--', `echo $$ > ${pidFile}; exec sleep 30`], {
        stdio: 'ignore',
        env,
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const until = Date.now() + 20_000;
      while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
        if (Date.now() > until) throw new Error('command never started');
        await new Promise((r) => setTimeout(r, 20));
      }
      sleeper = Number(readFileSync(pidFile, 'utf8'));
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      let alive = true;
      try {
        process.kill(sleeper, 0);
      } catch {
        alive = false;
      }
      expect(alive).toBe(false);
    } finally {
      try {
        if (sleeper > 1) process.kill(sleeper, 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('dsh run --sandbox', () => {
  it('confines the command when asked; danger-full-access by default', () => {
    const confined = dsh('run', '--json', '--sandbox', 'read-only', '--', 'touch /etc/dsh-cli-escape');
    expect(JSON.parse(confined.stdout).data.sandbox).toMatchObject({ mode: 'read-only', denied: true, denial: 'file' });
    expect(dsh('run', '--json', '--', 'true').stdout).toContain('"mode": "danger-full-access"');
    expect(dsh('run', '--sandbox', 'wide-open', '--', 'true').status).toBe(2);
  });
});
