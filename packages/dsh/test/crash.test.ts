/**
 * Nothing outlives dsh: a host killed with SIGKILL (or `dsh run` / `dsh mcp` killed) leaves no
 * process behind — one-shot, background, terminal and sandboxed trees, setsid and double-fork
 * escapees included — and the next start sweeps the cgroups and output directories a dead host
 * left.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalSubprocessRuntime, ownCgroupDir, WATCHDOG } from '@dsh/subprocess-local';
import { compose } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, sleepers, waitFor } from '../../../test/support.js';

const here = dirname(fileURLToPath(import.meta.url));
const HOST = join(here, 'fixtures', 'crash-host.mjs');
const CLI = join(here, '..', 'bin', 'dsh.js');

const started: ChildProcess[] = [];
const tokens: string[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.pid && c.exitCode === null) c.kill('SIGKILL');
  for (const t of tokens.splice(0)) for (const pid of sleepers(t).values()) if (pid > 1) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fresh(): { workspace: string; token: string } {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-crash-'));
  dirs.push(workspace);
  const token = String(randomInt(100_000, 999_999));
  tokens.push(token);
  return { workspace, token };
}

function run(argv: string[], cwd: string): ChildProcess {
  const child = spawn(process.execPath, argv, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child);
  return child;
}

describe('crash containment', () => {
  it('SIGKILL of a host ends every tree it started, escapees and sandboxed ones included', async () => {
    const { workspace, token } = fresh();
    const host = run([HOST, workspace, token], workspace);
    let out = '';
    host.stdout?.on('data', (d) => {
      out += String(d);
    });
    await waitFor(() => out.includes('ready'), 'the host to start its trees');
    const kinds = ['10', '11', '12', '20', '21', '22', '30', '31', '32', '40', '41', '42'].map((k) => `${k}${token}`);
    await waitFor(() => kinds.every((k) => sleepers(token).has(k)), 'every tree and escapee to run');
    host.kill('SIGKILL');
    await waitFor(() => sleepers(token).size === 0, 'every process of the dead host to end');
  });

  it.each(['auto', 'session'])(
    'a host that calls process.exit() without disposing leaves nothing its watchdog knows of [%s]',
    async (containment) => {
      const { workspace, token } = fresh();
      const host = run([join(here, 'fixtures', 'exit-host.mjs'), containment, token], workspace);
      // The tree's own process group in session mode; with a cgroup, the setsid escapee too.
      const expected = containment === 'auto' ? 2 : 1;
      const exited = new Promise((r) => host.once('exit', r));
      await waitFor(() => sleepers(token).size >= expected || host.exitCode !== null, 'the tree to start');
      await exited;
      const left = () => [...sleepers(token).keys()].filter((k) => containment === 'auto' || k.startsWith('6'));
      await waitFor(() => left().length === 0, 'the watchdog to end what the host left');
    },
  );

  it('kill -9 of `dsh run` and of `dsh mcp` leaves nothing running', async () => {
    const { workspace, token } = fresh();
    const cli = run([CLI, 'run', '--no-log', '--', `setsid sleep 1${token} & sleep 2${token}`], workspace);
    // Killed the moment its command has forked: nothing it started may be caught outside its tree then.
    const deadline = Date.now() + 20_000;
    while (sleepers(token).size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    expect(sleepers(token).size).toBe(2);
    cli.kill('SIGKILL');
    await waitFor(() => sleepers(token).size === 0, 'the command of a killed dsh run to end');

    // In its sandbox world (the default), and unconfined, where commands are the host's own children.
    for (const sandbox of ['workspace-write', 'danger-full-access']) {
      const mcp = run([CLI, 'mcp', '--no-log', '--workspace', workspace, '--sandbox', sandbox], workspace);
      const send = (msg: object) => mcp.stdin?.write(`${JSON.stringify(msg)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const command = `setsid sleep 3${token} & sleep 4${token}`;
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command } } });
      const by = Date.now() + 20_000;
      while (sleepers(token).size < 1 && Date.now() < by) await new Promise((r) => setTimeout(r, 1));
      expect(sleepers(token).size, sandbox).toBeGreaterThan(0);
      mcp.kill('SIGKILL');
      await waitFor(() => sleepers(token).size === 0, `the command of a killed dsh mcp (${sandbox}) to end`);
    }
  });

  it('the next start sweeps the cgroup and output directory a dead host left', async () => {
    const home = ownCgroupDir();
    expect(home).not.toBeNull();
    const { workspace, token } = fresh();
    // A pid no process has now: a child that already exited.
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const deadPid = gone.pid as number;
    const staleGroup = join(home as string, `dsh-${deadPid}-0badcafe`);
    mkdirSync(join(staleGroup, 't1'), { recursive: true });
    const orphan = spawn('sleep', [`5${token}`], { stdio: 'ignore', detached: true });
    started.push(orphan);
    writeFileSync(join(staleGroup, 't1', 'cgroup.procs'), String(orphan.pid));
    const outputRoot = join(workspace, 'outputs');
    const staleOutput = join(outputRoot, `run-${deadPid}-0badcafe`);
    mkdirSync(staleOutput, { recursive: true });
    writeFileSync(join(staleOutput, 'spill.txt'), 'left by a dead host');

    const rt = new LocalSubprocessRuntime();
    const dsh = await compose({ preset: 'base', config: { workspace, output: { dir: outputRoot } } });
    try {
      await waitFor(() => !isAlive(orphan.pid as number), 'the stale cgroup to be killed');
      await waitFor(() => !existsSync(staleGroup), 'the stale cgroup to be removed');
      expect(existsSync(staleOutput)).toBe(false);
    } finally {
      await dsh.dispose();
      await rt.dispose();
    }
  });

  it('a watchdog killed from outside is started again, with every registration', async () => {
    const rt = new LocalSubprocessRuntime();
    try {
      expect(rt.containment).toBe('cgroup');
      const first = WATCHDOG.pid;
      expect(first).toBeGreaterThan(1);
      process.kill(first as number, 'SIGKILL');
      await waitFor(() => WATCHDOG.pid !== undefined && WATCHDOG.pid !== first, 'a new watchdog');
      expect(isAlive(WATCHDOG.pid as number)).toBe(true);
    } finally {
      await rt.dispose();
    }
  });
});
