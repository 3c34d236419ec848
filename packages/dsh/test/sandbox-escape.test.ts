/**
 * The escape suite (issue 5): each attempt runs through the bash tool of a real composition in
 * workspace-write mode with bubblewrap; each must be denied and classified, and nothing may be
 * written outside the workspace. A missing bubblewrap is a failure here, not a skip.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { compose, type Dsh, parseShellResult } from 'dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dsh: Dsh;
let workspace: string;
let outside: string;
let server: Server;
let port = 0;
let connections = 0;
let unixServer: Server;
const unixPath = `/run/dsh-escape-${process.pid}.sock`;
const agent = () => dsh.createAgent('escaper');

beforeAll(async () => {
  // Not under /tmp: the sandbox gets a fresh /tmp, so paths there would not even exist inside.
  const root = mkdtempSync(join('/var/tmp', 'dsh-escape-'));
  workspace = join(root, 'ws');
  outside = join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  dsh = await compose({ preset: 'base', config: { workspace } });
  server = createServer((s) => {
    connections += 1;
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  unixServer = createServer((s) => {
    connections += 1;
    s.end();
  });
  await new Promise<void>((r) => unixServer.listen(unixPath, r));
});

afterAll(async () => {
  await dsh.dispose();
  await new Promise((r) => server.close(r));
  await new Promise((r) => unixServer.close(r));
  rmSync(dirname(workspace), { recursive: true, force: true });
});

async function attempt(command: string) {
  const res = await dsh.tools.call(agent(), 'bash', { command });
  return { res, parsed: parseShellResult(res.text) };
}

const fileEscapes: [string, () => string, () => string][] = [
  ['/etc', () => 'echo x > /etc/dsh-escape', () => '/etc/dsh-escape'],
  [
    'the parent of the workspace',
    () => `echo x > ${dirname(workspace)}/escape`,
    () => join(dirname(workspace), 'escape'),
  ],
  ['a symlink in the workspace pointing outside', () => 'echo x > link/escape', () => join(outside, 'escape')],
  ['a .. path', () => 'echo x > ../outside/dotdot', () => join(outside, 'dotdot')],
  ['/proc/self/root', () => `echo x > /proc/self/root${outside}/procroot`, () => join(outside, 'procroot')],
  ['cd then a relative write', () => `cd ${outside} && echo x > relative`, () => join(outside, 'relative')],
  ['python3 file APIs', () => `python3 -c "open('${outside}/py', 'w').write('x')"`, () => join(outside, 'py')],
  [
    'node file APIs',
    () => `node -e "require('fs').writeFileSync('${outside}/node', 'x')"`,
    () => join(outside, 'node'),
  ],
  ['mkdir outside', () => `mkdir ${outside}/newdir`, () => join(outside, 'newdir')],
  ['a copy over a system file', () => 'cp /etc/hostname /usr/bin/dsh-escape', () => '/usr/bin/dsh-escape'],
];

describe('sandbox escape suite (workspace-write, bubblewrap)', () => {
  beforeAll(() => {
    symlinkSync(outside, join(workspace, 'link'));
  });

  it.each(fileEscapes)('a write to %s is denied as file, and nothing lands there', async (_name, command, target) => {
    const { res, parsed } = await attempt(command());
    expect(res.data.sandbox).toMatchObject({
      mode: 'workspace-write',
      denied: true,
      denial: 'file',
      runnerFailed: false,
    });
    expect(parsed).toMatchObject({ sandboxDenied: true, denial: 'file', sandboxMode: 'workspace-write' });
    expect(existsSync(target())).toBe(false);
  });

  it('a write to $HOME lands in the world’s private home (issue 20), never in the real one', async () => {
    const real = join(process.env.HOME ?? '/root', 'dsh-escape');
    const { res, parsed } = await attempt('echo x > "$HOME/dsh-escape" && cat "$HOME/dsh-escape"');
    expect(parsed.stdout).toBe('x\n');
    expect(res.data.sandbox).toMatchObject({ mode: 'workspace-write', denied: false });
    expect(existsSync(real)).toBe(false);
  });

  it('a background child that outlives the shell cannot write outside either', async () => {
    const { res } = await attempt(`(sleep 0.3; echo x > ${outside}/late) & echo started`);
    expect(res.data.exit_code).toBe(0);
    await new Promise((r) => setTimeout(r, 800));
    expect(existsSync(join(outside, 'late'))).toBe(false);
  });

  it('TCP to a server on 127.0.0.1 is denied as network; the server sees nothing', async () => {
    const before = connections;
    const { res, parsed } = await attempt(
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=5)"`,
    );
    expect(res.data.sandbox).toMatchObject({ denied: true, denial: 'network' });
    expect(parsed.denial).toBe('network');
    expect(connections).toBe(before);
  });

  it('a DNS lookup is denied as network', async () => {
    const { res } = await attempt(`python3 -c "import socket; socket.gethostbyname('example.com')"`);
    expect(res.data.sandbox).toMatchObject({ denied: true, denial: 'network' });
  });

  it('a daemon socket in /run is out of reach, denied as network', async () => {
    const before = connections;
    const { res } = await attempt(
      `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${unixPath}')"`,
    );
    expect(res.data.sandbox).toMatchObject({ denied: true, denial: 'network' });
    expect(connections).toBe(before);
  });

  it('read-only mode refuses writes inside the workspace too', async () => {
    const ro = await compose({ config: { workspace, sandbox: { mode: 'read-only' } } });
    try {
      const res = await ro.tools.call(ro.createAgent('ro'), 'bash', { command: 'echo x > inside-ro' });
      expect(res.data.sandbox).toMatchObject({ mode: 'read-only', denied: true, denial: 'file' });
      expect(existsSync(join(workspace, 'inside-ro'))).toBe(false);
    } finally {
      await ro.dispose();
    }
  });

  it('workspace-write writes inside the workspace, not denied', async () => {
    const { res } = await attempt('echo ok > inside && cat inside');
    expect(res.data).toMatchObject({ exit_code: 0, sandbox: { denied: false } });
    expect(existsSync(join(workspace, 'inside'))).toBe(true);
  });

  it('danger-full-access writes outside', async () => {
    const open = await compose({ config: { workspace, sandbox: { mode: 'danger-full-access' } } });
    try {
      const res = await open.tools.call(open.createAgent('free'), 'bash', { command: `echo x > ${outside}/allowed` });
      expect(res.data).toMatchObject({ exit_code: 0, sandbox: { mode: 'danger-full-access', denied: false } });
      expect(existsSync(join(outside, 'allowed'))).toBe(true);
    } finally {
      await open.dispose();
    }
  });

  it('a missing runner gives SANDBOX_UNAVAILABLE and runs nothing', async () => {
    const broken = await compose({ config: { workspace, sandbox: { bwrapPath: '/nonexistent/bwrap' } } });
    try {
      const res = await broken.tools.call(broken.createAgent('b'), 'bash', { command: `echo x > ${workspace}/never` });
      expect(res).toMatchObject({ isError: true, data: { error: { code: 'SANDBOX_UNAVAILABLE' } } });
      expect(res.text).toMatch(/apt-get install bubblewrap/);
      expect(existsSync(join(workspace, 'never'))).toBe(false);
    } finally {
      await broken.dispose();
    }
  });
});

describe('escalation', () => {
  it('an approved escalation runs that one call unconfined; a denied one runs nothing', async () => {
    const asked: unknown[] = [];
    let answer = true;
    const esc = await compose({
      config: {
        workspace,
        approver: async (request) => {
          asked.push(request);
          return answer;
        },
      },
    });
    try {
      const who = esc.createAgent('needs-out');
      const target = join(outside, 'escalated');
      const missing = await esc.tools.call(who, 'bash', {
        command: `touch ${target}`,
        sandbox_permissions: 'require_escalated',
      });
      expect(missing.data.error).toEqual({ code: 'INVALID_ARGUMENT' }); // no justification
      const ok = await esc.tools.call(who, 'bash', {
        command: `touch ${target}`,
        sandbox_permissions: 'require_escalated',
        justification: 'the test needs a file outside',
      });
      expect(ok.data).toMatchObject({ exit_code: 0, sandbox: { mode: 'danger-full-access' } });
      expect(existsSync(target)).toBe(true);
      expect(asked[0]).toMatchObject({
        from: 'workspace-write',
        to: 'danger-full-access',
        justification: 'the test needs a file outside',
      });
      const after = await esc.tools.call(who, 'bash', { command: `touch ${outside}/after-escalation` });
      expect(after.data.sandbox).toMatchObject({ mode: 'workspace-write', denied: true }); // for that call only
      answer = false;
      const denied = await esc.tools.call(who, 'bash', {
        command: `touch ${outside}/denied`,
        sandbox_permissions: 'require_escalated',
        justification: 'again',
      });
      expect(denied).toMatchObject({
        isError: true,
        data: { error: { code: 'ESCALATION_DENIED' }, mode: 'workspace-write' },
      });
      expect(existsSync(join(outside, 'denied'))).toBe(false);
    } finally {
      await esc.dispose();
    }
  });

  it('without an approver every escalation is denied', async () => {
    const res = await dsh.tools.call(agent(), 'bash', {
      command: 'true',
      sandbox_permissions: 'require_escalated',
      justification: 'please',
    });
    expect(res).toMatchObject({ isError: true, data: { error: { code: 'ESCALATION_DENIED' } } });
    expect(res.text).toMatch(/no approver/);
  });
});

describe('terminal fence', () => {
  it('a terminal in workspace-write runs its shell inside the fence; the mode cannot change while it lives', async () => {
    const full = await compose({ preset: 'full', config: { workspace } });
    try {
      const who = full.createAgent('term');
      const id = (await full.tools.call(who, 'terminal_open', {})).data.terminal_id as string;
      const denied = await full.tools.call(who, 'terminal_send', {
        terminal_id: id,
        input: `echo x > ${outside}/from-pty`,
      });
      expect(denied.text).toMatch(/Read-only file system/);
      expect(existsSync(join(outside, 'from-pty'))).toBe(false);
      const inside = await full.tools.call(who, 'terminal_send', {
        terminal_id: id,
        input: 'echo ok > from-pty && cat from-pty',
      });
      expect(inside.text).toBe('ok\n[ready at the prompt; exit code: 0]');
      expect(() => full.ctx.get('sandboxPolicy').setMode(who, 'danger-full-access')).toThrow(
        expect.objectContaining({ code: 'SANDBOX_FENCED' }),
      );
      await full.tools.call(who, 'terminal_close', { terminal_id: id });
      full.ctx.get('sandboxPolicy').setMode(who, 'danger-full-access'); // free once the PTY is gone
    } finally {
      await full.dispose();
    }
  });

  it('no fence in a restricted mode: terminal_open fails before anything starts', async () => {
    const broken = await compose({
      preset: 'full',
      config: { workspace, sandbox: { bwrapPath: '/nonexistent/bwrap' } },
    });
    try {
      const res = await broken.tools.call(broken.createAgent('t'), 'terminal_open', {});
      expect(res).toMatchObject({ isError: true, data: { error: { code: 'SANDBOX_UNAVAILABLE' } } });
      writeFileSync(join(workspace, 'marker'), '');
    } finally {
      await broken.dispose();
    }
  });
});

describe('escapes through privileges and the host’s processes', () => {
  it('no capabilities inside: remounting / read-write is refused, even when dsh runs as root', async () => {
    const { res } = await attempt('mount -o remount,bind,rw / && echo x > /etc/dsh-remount-escape');
    expect(res.data.exit_code).not.toBe(0);
    expect(existsSync('/etc/dsh-remount-escape')).toBe(false);
    const caps = await attempt("grep CapEff /proc/self/status | awk '{print $2}'");
    expect(caps.parsed.stdout.trim()).toBe('0000000000000000');
  });

  it('host processes are invisible: no /proc/<dsh pid>/root, no signals to dsh, no nsenter', async () => {
    const { parsed } = await attempt(`ls /proc/${process.pid} 2>&1; kill -0 ${process.pid} 2>&1; echo "rc=$?"`);
    expect(parsed.stdout).toMatch(/No such file or directory/);
    expect(parsed.stdout).toMatch(/rc=1/);
    const ns = await attempt(`nsenter -t ${process.pid} -m -n -- touch ${outside}/nsenter-escape`);
    expect(ns.res.data.exit_code).not.toBe(0);
    expect(existsSync(join(outside, 'nsenter-escape'))).toBe(false);
  });

  it('a sandboxed terminal has the same walls, and its setsid children die with it', async () => {
    const full = await compose({ preset: 'full', config: { workspace } });
    const who = full.createAgent('t2');
    const id = (await full.tools.call(who, 'terminal_open', {})).data.terminal_id as string;
    const send = (input: string) => full.tools.call(who, 'terminal_send', { terminal_id: id, input });
    expect((await send(`kill -0 ${process.pid}; echo "rc=$?"`)).text).toMatch(/rc=1/);
    expect((await send(`echo x > /proc/${process.pid}/root${outside}/term-proc 2>&1; echo done`)).text).toMatch(/done/);
    expect(existsSync(join(outside, 'term-proc'))).toBe(false);
    await send(`setsid bash -c 'while sleep 0.1; do date >> ${workspace}/alive; done' </dev/null >/dev/null 2>&1 &`);
    await full.dispose();
    const { statSync } = await import('node:fs');
    const size = existsSync(join(workspace, 'alive')) ? statSync(join(workspace, 'alive')).size : 0;
    await new Promise((r) => setTimeout(r, 500));
    const later = existsSync(join(workspace, 'alive')) ? statSync(join(workspace, 'alive')).size : 0;
    expect(later).toBe(size); // nothing is still writing
  });

  it('a reload of the sandbox plugin never lets a call run unconfined', async () => {
    const d = await compose({ config: { workspace } });
    try {
      const who = d.createAgent('r');
      const reloading = d.reload('sandbox');
      let gap = false; // the policy must never be missing while its plugin reloads
      const calls = [];
      for (let i = 1; i <= 3; i++) {
        await Promise.resolve();
        gap ||= !d.ctx.has('sandboxPolicy');
        calls.push(d.tools.call(who, 'bash', { command: `echo x > ${outside}/reload-race-${i}` }));
      }
      await reloading;
      expect(gap).toBe(false);
      for (const [i, c] of (await Promise.all(calls)).entries()) {
        expect(c.isError || (c.data.sandbox as { denied?: boolean } | null)?.denied === true).toBe(true);
        expect(existsSync(join(outside, `reload-race-${i + 1}`))).toBe(false);
      }
    } finally {
      await d.dispose();
    }
  });
});
