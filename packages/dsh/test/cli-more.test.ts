/**
 * The rest of the CLI: --version, --dump-config --preset, exit codes in --help, notes that name
 * the CLI's own flags, `dsh log list|show`, and the progress line of `dsh run` (on a terminal
 * only).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { DSH_VERSION } from 'dsh';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/dsh.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'dsh-cli-more-'));
const logDir = join(home, 'logs');
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = { ...process.env, HOME: home };
function dsh(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
}

describe('dsh CLI', () => {
  it('--version prints the package version', () => {
    expect(dsh('--version')).toMatchObject({ status: 0, stdout: `${DSH_VERSION}\n` });
  });

  it('--dump-config --preset full shows the terminal tools', () => {
    const r = dsh('--dump-config', '--preset', 'full');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).tools).toContain('terminal_send');
    expect(dsh('--dump-config', '--preset', 'nope').status).toBe(2);
  });

  it('--help of each command lists the exit statuses', () => {
    for (const args of [['--help'], ['run', '--help'], ['mcp', '--help']]) {
      const r = dsh(...args);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/Exit status:[\s\S]*124 when it timed out[\s\S]*128\+n/);
    }
  });

  it("notes name the CLI's own flags, not the tool's argument names", () => {
    const r = dsh('run', '--no-log', '--timeout', '100', '--', 'sleep 5');
    expect(r.status).toBe(124);
    expect(r.stdout).toContain('raise --timeout (at most 600000)');
    expect(r.stdout).not.toMatch(/timeout_ms|run_in_background/);
  });

  it('dsh run logs by default; log list and log show read it back with its facts', () => {
    expect(dsh('run', '--log-dir', logDir, '--', 'echo logged; exit 6').status).toBe(6);
    const list = dsh('log', 'list', '--log-dir', logDir);
    expect(list.status).toBe(0);
    const id = list.stdout.trim().split('\n').at(-1)?.split(/\s+/)[1] as string;
    expect(list.stdout).toMatch(/ended/);
    const shown = dsh('log', 'show', '--log-dir', logDir, id);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(/cli bash \{"command":"echo logged; exit 6"\} → exit 6/);
    expect(dsh('log', 'show', '--log-dir', logDir, 'missing-session').status).toBe(1);
    expect(dsh('run', '--no-log', '--', 'true').status).toBe(0);
    expect(dsh('log', 'list', '--log-dir', logDir).stdout.trim().split('\n')).toHaveLength(1);
  });

  it('shows a progress line on a terminal while a command runs, and nothing when stderr is not a terminal', async () => {
    const command = 'for i in 1 2 3; do echo step$i; sleep 0.8; done';
    const piped = dsh('run', '--no-log', '--', command);
    expect(piped.stderr).toBe('');
    const runtime = new LocalSubprocessRuntime();
    try {
      const term = await runtime.spawnTerminal({
        argv: [process.execPath, bin, 'run', '--no-log', '--', command],
        cwd: home,
        env: { HOME: home },
        cols: 120,
        rows: 10,
        graceMs: 500,
      });
      let seen = '';
      term.output.on('data', (d: string) => {
        seen += d;
      });
      expect(await term.done).toMatchObject({ exitCode: 0 });
      expect(seen).toMatch(/\[dsh\] running [12] s · step\d/);
      expect(seen).toContain('[exit code: 0]');
    } finally {
      await runtime.dispose();
    }
  });
});
