/**
 * Remote worlds over a real sshd on loopback (DESIGN §15): the boot sends the runtime server to a
 * user that has only Node.js, and finds it cached the next time; shell, jobs, terminals, tools and
 * the sandbox run there with the remote's paths; a lost channel settles everything with
 * WORLD_DISCONNECTED; the server ends its trees when its stdin closes; bad worlds are refused.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compose, type Dsh } from 'dsh';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SSH_TEST_USER, type Sshd, startSshd } from '../../../test/sshd.js';
import { childMatching, codeOf, isAlive, sleepers, tempDir, waitFor } from '../../../test/support.js';
import { INIT, start } from './mcp/raw.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'dsh.js');
/** What dumpConfig() says of a remote world. */
type WorldDump = {
  kind: string;
  boot: string;
  connected: boolean;
  remote: { uid: number; home: string; node: string; fence: string | null };
};
let sshd: Sshd;
const open: Dsh[] = [];
const tokens: string[] = [];

beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
  for (const t of tokens.splice(0)) for (const pid of sleepers(t).values()) if (pid > 1) process.kill(pid, 'SIGKILL');
});

/** Python that forks up to 100 sleeping children (stopping at the first refused fork) and prints the world's process count. */
const FORK_100 = [
  'import os, time',
  'for i in range(100):',
  '    try: pid = os.fork()',
  '    except OSError: break',
  '    if pid == 0: time.sleep(5); os._exit(0)',
  "print(len([d for d in os.listdir('/proc') if d.isdigit()]))",
].join('\n');

function token(): string {
  const t = String(randomInt(100_000, 999_999));
  tokens.push(t);
  return t;
}

async function remote(user = 'root', preset: 'base' | 'full' = 'full', extra: Record<string, unknown> = {}) {
  const dsh = await compose({
    preset,
    config: { world: { kind: 'remote', connect: sshd.argv(user) }, sandbox: { mode: 'danger-full-access' }, ...extra },
  });
  open.push(dsh);
  return dsh;
}

describe('remote world over ssh', () => {
  it('boots the runtime server for a user with only Node.js, then finds it cached; runs there with its paths', async () => {
    const home = execFileSync('sh', ['-c', `getent passwd ${SSH_TEST_USER} | cut -d: -f6`], {
      encoding: 'utf8',
    }).trim();
    rmSync(join(home, '.cache', 'dsh'), { recursive: true, force: true });
    const first = await remote(SSH_TEST_USER, 'base');
    const world = first.dumpConfig().world as WorldDump;
    expect(world).toMatchObject({ kind: 'remote', boot: 'sent', connected: true });
    expect(world.remote).toMatchObject({
      uid: Number(execFileSync('id', ['-u', SSH_TEST_USER], { encoding: 'utf8' })),
    });
    expect(world.remote.home).toBe(home);
    expect(world.remote.node).toBe(process.version);
    const agent = first.createAgent('a');
    const r = await first.tools.call(agent, 'bash', { command: 'id -un; pwd' });
    expect(r.text).toContain(`${SSH_TEST_USER}\n${home}\n`);
    expect(r.text).toContain('[exit code: 0]');
    const outputDir = (first.dumpConfig().config as { output: { dir: string } }).output.dir;
    expect(outputDir.startsWith('/tmp/dsh-')).toBe(true);
    // The stand-in editor exists there: git commit without -m fails at once with the message.
    const editor = await first.tools.call(agent, 'bash', { command: '"$EDITOR" x; echo "status $?"' });
    expect(editor.text).toContain('no editor can run in a one-shot command');
    expect(editor.text).toContain('status 1');
    const second = await remote(SSH_TEST_USER, 'base');
    expect((second.dumpConfig().world as Record<string, unknown>).boot).toBe('cached');
    await first.dispose();
    await waitFor(() => !existsSync(join(outputDir)), 'the remote output directory to be removed at dispose');
  });

  it('is a clean channel: commands see no ssh session variables, and bash reads no ~/.bashrc for them', async () => {
    const home = execFileSync('sh', ['-c', `getent passwd ${SSH_TEST_USER} | cut -d: -f6`], {
      encoding: 'utf8',
    }).trim();
    const rc = join(home, '.bashrc');
    const had = existsSync(rc) ? readFileSync(rc) : null;
    writeFileSync(rc, 'echo DSH-RC-LOADED\n');
    try {
      const dsh = await remote(SSH_TEST_USER, 'base');
      const agent = dsh.createAgent('a');
      const r = await dsh.tools.call(agent, 'bash', { command: 'echo "[$SSH_CLIENT][$SSH_CONNECTION][$SSH_TTY]"' });
      expect(r.text).toMatch(/^\[\]\[\]\[\]\n/);
      expect(r.text).not.toContain('DSH-RC-LOADED');
      // The login itself did read it (the probe is armed): sshd runs the channel through bash.
      const login = spawnSync('ssh', [...sshd.argv(SSH_TEST_USER).slice(1), 'bash -c true'], { encoding: 'utf8' });
      expect(login.stdout).toContain('DSH-RC-LOADED');
    } finally {
      if (had) writeFileSync(rc, had);
      else rmSync(rc, { force: true });
    }
  });

  it('shell, background jobs, spills, terminals and the sandbox run there unchanged', async () => {
    const dsh = await remote('root', 'full');
    const agent = dsh.createAgent('a');
    const big = await dsh.tools.call(agent, 'bash', { command: 'seq 1 2000000' });
    expect(big.text).toMatch(/complete stdout is in (\S+)/);
    const spill = /complete stdout is in (\S+)/.exec(big.text)?.[1] as string;
    const tail = await dsh.tools.call(agent, 'bash', { command: `tail -n 1 ${spill}` });
    expect(tail.text).toContain('2000000\n');
    const job = await dsh.tools.call(agent, 'bash', {
      command: 'echo from-job; sleep 0.2; echo done',
      run_in_background: true,
    });
    const id = (job.data as { job_id: string }).job_id;
    await waitFor(async () => {
      const out = await dsh.tools.call(agent, 'job_output', { job_id: id });
      return out.text.includes('[exit code: 0]') ? out : null;
    }, 'the job to end');
    const term = await dsh.tools.call(agent, 'terminal_open', {});
    const tid = (term.data as { terminal_id: string }).terminal_id;
    const sent = await dsh.tools.call(agent, 'terminal_send', { terminal_id: tid, input: 'echo $((6*7)); tty' });
    expect(sent.text).toContain('42');
    expect(sent.text).toMatch(/\/dev\/pts\/\d+/);
    await dsh.tools.call(agent, 'terminal_close', { terminal_id: tid });
    // The sandbox resolves on the remote side: bubblewrap there, the workspace writable, / not.
    const fenced = await compose({
      preset: 'base',
      config: {
        world: { kind: 'remote', connect: sshd.argv('root') },
        workspace: '/tmp',
        sandbox: { mode: 'workspace-write' },
      },
    });
    open.push(fenced);
    expect((fenced.dumpConfig().world as WorldDump).remote.fence).toBe('bubblewrap');
    const b = fenced.createAgent('b');
    const denied = await fenced.tools.call(b, 'bash', { command: 'touch /etc/dsh-remote-escape' });
    expect(denied.text).toContain('Read-only file system');
    expect(existsSync('/etc/dsh-remote-escape')).toBe(false);
  });

  it('a fenced world there has the fence’s files there: an undumpable server, hidden files refused, and an unprivileged user’s rlimits', async () => {
    const secret = join(tempDir('dsh-remote-secret-'), 'secret');
    writeFileSync(secret, 'the-secret\n', { mode: 0o644 });
    chmodSync(dirname(secret), 0o755);
    const dsh = await remote(SSH_TEST_USER, 'base', {
      workspace: '/tmp',
      sandbox: { mode: 'workspace-write', limits: { pids: 64 }, denyRead: [secret] },
    });
    const agent = dsh.createAgent('fenced');
    // The server runs from an execute-only copy made there: not dumpable, so its environment is closed.
    const server = await dsh.tools.call(agent, 'bash', { command: 'cat /proc/2/environ >/dev/null; echo "rc=$?"' });
    expect(server.text).toContain('Permission denied');
    expect(server.text).toContain('rc=1');
    // A hidden path (denyRead) is refused, not read as empty.
    const hidden = await dsh.tools.call(agent, 'bash', { command: `cat ${secret}; echo "rc=$?"` });
    expect(hidden.text).toContain('Permission denied');
    expect(hidden.text).not.toContain('the-secret');
    // The pids limit holds in the world's own user namespace there.
    const many = await dsh.tools.call(agent, 'bash', {
      // Forks until one is refused (at most 100), then counts the world's processes; the children end with the call.
      command: `python3 -c "${FORK_100}"`,
    });
    const count = Number(/^(\d+)$/m.exec(many.text)?.[1]);
    expect(count).toBeGreaterThan(10);
    expect(count).toBeLessThanOrEqual(64);
  });

  it('the language servers run there too: files are read through the world', async () => {
    const workspace = tempDir('dsh-remote-lsp-');
    const dsh = await remote('root', 'full', { workspace });
    const agent = dsh.createAgent('a');
    const write = "printf '%s\\n' '{}' > tsconfig.json; printf '%s\\n' 'export const n: number = \"x\";' > a.ts";
    await dsh.tools.call(agent, 'bash', { command: write });
    const r = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'a.ts' });
    expect(r.text).toMatch(/^a\.ts:1:\d+: error: /);
    const [server] = dsh.ctx.get('lsp').list();
    expect(server?.pid).toBeGreaterThan(1);
    await dsh.dispose();
    await waitFor(() => !isAlive(server?.pid as number), 'the server there to end');
  });

  it('a lost channel settles in-flight calls with WORLD_DISCONNECTED, and later calls say the world was lost', async () => {
    const dsh = await remote('root', 'base');
    const agent = dsh.createAgent('a');
    const t = token();
    const info = await (dsh.ctx.subprocess as unknown as { ready: Promise<{ pid: number }> }).ready;
    const call = dsh.tools.call(agent, 'bash', { command: `sleep 7${t}` });
    await waitFor(() => sleepers(t).size === 1, 'the command to run there');
    expect(info.pid).toBeGreaterThan(1);
    process.kill(info.pid, 'SIGKILL'); // the runtime server dies: the channel is lost
    const lost = await call;
    expect(lost.isError).toBe(true);
    expect((lost.data as { error: { code: string } }).error.code).toBe('WORLD_DISCONNECTED');
    const later = await dsh.tools.call(agent, 'bash', { command: 'true' });
    expect((later.data as { error: { code: string } }).error.code).toBe('WORLD_DISCONNECTED');
    expect(later.text).toContain('was lost');
    // The cause, once: the channel the person gave, and how it ended.
    expect(lost.text).toContain(`the channel process ssh -T -p ${sshd.port} -i `);
    expect(lost.text).not.toContain('the channel process ssh ended');
    // Its output directory on the remote outlived it (no teardown could reach the far side); the
    // next world made there sweeps it, and keeps its own.
    const outputDir = (d: Dsh): string => (d.dumpConfig() as { config: { output: { dir: string } } }).config.output.dir;
    const left = outputDir(dsh);
    await dsh.dispose();
    expect(existsSync(left)).toBe(true);
    // Beside it, directories the sweep must not touch: not named as dsh names them, or unmarked.
    const decoys = ['run-2023-12-05', 'run-42-baseline', 'run-999999-abc123'].map((n) => join(dirname(left), n));
    for (const d of decoys) mkdirSync(d, { recursive: true });
    try {
      const next = await remote('root', 'base');
      expect(existsSync(left)).toBe(false);
      expect(existsSync(outputDir(next))).toBe(true);
      for (const d of decoys) expect(existsSync(d), d).toBe(true);
    } finally {
      for (const d of decoys) rmSync(d, { recursive: true, force: true });
    }
  });

  it('the server ends every tree it started when its stdin closes (the channel process killed here)', async () => {
    const dsh = await remote('root', 'base');
    const agent = dsh.createAgent('a');
    const t = token();
    await dsh.tools.call(agent, 'bash', {
      command: `setsid sleep 8${t} >/dev/null 2>&1 & exec sleep 9${t}`,
      run_in_background: true,
    });
    await waitFor(() => sleepers(t).size === 2, 'the trees to run there');
    const channel = childMatching((argv) => argv[0] === 'ssh' && argv.includes(String(sshd.port)));
    expect(channel).toBeDefined();
    process.kill(Number(channel), 'SIGKILL');
    await waitFor(() => sleepers(t).size === 0, 'the remote trees to end with the channel');
  });

  it('is made again after a loss: the next call runs in a fresh world and says so once; the old one’s processes are gone', async () => {
    const dsh = await remote('root', 'base');
    const agent = dsh.createAgent('a');
    const t = token();
    await dsh.tools.call(agent, 'bash', { command: `sleep 9${t}`, run_in_background: true });
    await waitFor(() => sleepers(t).size === 1, 'the job to run there');
    const channel = childMatching((argv) => argv[0] === 'ssh' && argv.includes(String(sshd.port)));
    expect(channel).toBeDefined();
    process.kill(Number(channel), 'SIGKILL');
    const during = await dsh.tools.call(agent, 'bash', { command: 'true' });
    if (during.isError) {
      expect((during.data as { error: { code: string } }).error.code).toBe('WORLD_DISCONNECTED');
      expect(during.text).toContain('connecting to the machine again');
    }
    await waitFor(() => sleepers(t).size === 0, 'the lost world’s processes to end');
    const fresh = await waitFor(async () => {
      const r = await dsh.tools.call(agent, 'bash', { command: 'echo fresh' });
      return r.isError ? null : r;
    }, 'a call to run in the world made again');
    expect(fresh.text).toMatch(/^fresh\n/);
    expect(fresh.text).toContain('[note: the connection to the machine was lost and dsh connected again');
    expect(fresh.text).toContain('This is a fresh world');
    const again = await dsh.tools.call(agent, 'bash', { command: 'echo again' });
    expect(again.text).not.toContain('connected again');
    // Its output directory is there again: a long output is kept whole.
    const big = await dsh.tools.call(agent, 'bash', { command: 'seq 1 300000' });
    const spill = /complete stdout is in (\S+)/.exec(big.text)?.[1] as string;
    expect(spill).toBeDefined();
    expect((await dsh.tools.call(agent, 'bash', { command: `tail -n 1 ${spill}` })).text).toContain('300000\n');
    // Another agent, which never ran in the lost world, is told nothing.
    const other = await dsh.tools.call(dsh.createAgent('b'), 'bash', { command: 'true' });
    expect(other.text).not.toContain('connected again');
  });

  it('refuses bad worlds with typed errors that say what to do', async () => {
    const world = (w: unknown) => compose({ config: { world: w as never } });
    expect(await codeOf(world({ kind: 'remote', connect: [] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(world({ kind: 'remote' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(world({ kind: 'mars' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(world({ kind: 'remote', connect: ['ssh'], nodes: 1 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(world({ kind: 'remote', connect: ['false'] }))).toBe('WORLD_UNAVAILABLE');
    const noNode = world({ kind: 'remote', connect: sshd.argv('root'), node: '/nonexistent/node' });
    await expect(noNode).rejects.toMatchObject({ code: 'WORLD_UNAVAILABLE' });
    const noWorkspace = compose({
      config: { world: { kind: 'remote', connect: sshd.argv('root') }, workspace: '/nonexistent/dsh-ws' },
    });
    await expect(noWorkspace).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', data: { field: 'workspace' } });
  });

  it('dsh mcp --connect serves tools that run there; dsh --dump-config --connect shows the remote', async () => {
    const mcp = start(['--connect', sshd.argv('root').join(' '), '--sandbox', 'danger-full-access']);
    try {
      mcp.send(INIT);
      await mcp.response(0);
      mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      mcp.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        // An ancestor of the command is in the ssh session; the command itself sees none of it.
        params: {
          name: 'bash',
          arguments: {
            command:
              "p=$PPID; while [ \"$p\" -gt 1 ]; do if tr '\\0' '\\n' </proc/$p/environ | grep -q '^SSH_CONNECTION=127.0.0.1'; then echo over-ssh; break; fi; p=$(awk '{print $4}' /proc/$p/stat); done; echo \"own:[$SSH_CONNECTION]\"",
          },
        },
      });
      const r = (await mcp.response(1)) as { result: { content: { text: string }[] } };
      expect(r.result.content[0]?.text).toContain('over-ssh\nown:[]\n');
      expect(mcp.stderr()).toContain('· world ssh');
    } finally {
      mcp.child.stdin?.end();
      await mcp.exited;
    }
    const dump = spawnSync(process.execPath, [CLI, '--dump-config', '--connect', sshd.argv(SSH_TEST_USER).join(' ')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const world = (JSON.parse(dump.stdout) as { world: WorldDump }).world;
    expect(world).toMatchObject({ kind: 'remote', connected: true });
    expect(world.remote.node).toBe(process.version);
  });

  it('dsh run --connect runs the command there', () => {
    const r = spawnSync(
      process.execPath,
      [CLI, 'run', '--no-log', '--connect', sshd.argv(SSH_TEST_USER).join(' '), '--', 'id -un'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.stdout).toContain(`${SSH_TEST_USER}\n`);
    expect(r.status).toBe(0);
    // Before the subcommand it would not reach run: refused, nothing runs here.
    const misplaced = spawnSync(process.execPath, [CLI, '--connect', 'nosuch', 'run', '--no-log', '--', 'echo here'], {
      encoding: 'utf8',
    });
    expect(misplaced).toMatchObject({ status: 2, stdout: '' });
  });

  it('--remote-node names the Node.js there (a wrong one is told, not run past), and goes only with --connect', () => {
    const connect = sshd.argv(SSH_TEST_USER).join(' ');
    const run = (extra: string[]) =>
      spawnSync(process.execPath, [CLI, 'run', '--no-log', ...extra, '--', 'echo ran-there'], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const good = run(['--connect', connect, '--remote-node', process.execPath, '--joins-argv']);
    expect(good.stdout, good.stderr).toContain('ran-there\n');
    expect(good.status).toBe(0);
    const wrong = run(['--connect', connect, '--remote-node', '/nonexistent/node']);
    expect(wrong.status).not.toBe(0);
    expect(`${wrong.stdout}${wrong.stderr}`).toMatch(/\/nonexistent\/node/);
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain('ran-there');
    const alone = run(['--remote-node', process.execPath]);
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/go with --connect/);
  });
});
