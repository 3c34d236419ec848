import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createOwner } from '@dsh/core';
import {
  BubblewrapSandbox,
  CGROUP_SLOT,
  classifyRun,
  fenceArgs,
  isWider,
  type ResolvedSandbox,
  SandboxPolicyService,
  worldArgv,
} from '@dsh/sandbox';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { SERVER_ENTRY } from '@dsh/subprocess-remote';
import { describe, expect, it } from 'vitest';
import { codeOfSync as codeOf } from '../../../../test/support.js';

const ws: ResolvedSandbox = { mode: 'workspace-write', writableRoots: ['/work/ws'], network: false };

describe('denial classification (conservative)', () => {
  const run = (exitCode: number | null, stderr: string, policy: ResolvedSandbox = ws) =>
    classifyRun({ exitCode, stderr, stdout: '' }, policy, 'full');

  it('read-only-file-system errors outside the writable roots are file denials', () => {
    expect(run(1, 'sh: 1: cannot create /etc/x: Read-only file system')).toMatchObject({
      denied: true,
      denial: 'file',
    });
  });

  it('permission errors, stdout text and plain failures are the command’s own', () => {
    expect(run(1, "touch: cannot touch '/usr/lib/x': Permission denied")).toMatchObject({ denied: false });
    expect(run(1, 'head: cannot open /etc/shadow for reading: Permission denied')).toMatchObject({ denied: false });
    const onStdout = { exitCode: 2, stdout: 'log: open /etc/app.conf: Read-only file system', stderr: '' };
    expect(classifyRun(onStdout, ws, 'full')).toMatchObject({ denied: false });
    expect(run(1, 'bash: /work/ws/script.sh: Permission denied')).toMatchObject({ denied: false, denial: null });
    expect(run(2, 'grep: pattern not found')).toMatchObject({ denied: false });
    expect(run(0, 'Read-only file system (but the command succeeded)')).toMatchObject({ denied: false });
  });

  it('network errors count only while the network is off', () => {
    expect(run(1, 'curl: (7) Failed to connect: Connection refused')).toMatchObject({
      denied: true,
      denial: 'network',
    });
    expect(run(1, 'socket.gaierror: [Errno -3] Temporary failure in name resolution')).toMatchObject({
      denial: 'network',
    });
    expect(run(1, 'Connection refused', { ...ws, network: true })).toMatchObject({ denied: false });
  });

  it('a refused connection to a loopback port is a denial only when the host listens there', () => {
    const listens = (port: number) => port === 8800;
    const refused = (port: number) =>
      `curl: (7) Failed to connect to 127.0.0.1 port ${port} after 0 ms: Connection refused`;
    expect(classifyRun({ exitCode: 7, stdout: '', stderr: refused(8800) }, ws, 'full', listens)).toMatchObject({
      denied: true,
      denial: 'network',
    });
    expect(classifyRun({ exitCode: 7, stdout: '', stderr: refused(8799) }, ws, 'full', listens)).toMatchObject({
      denied: false,
    });
    const node = 'Error: connect ECONNREFUSED 127.0.0.1:8799';
    expect(classifyRun({ exitCode: 1, stdout: '', stderr: node }, ws, 'full', listens)).toMatchObject({
      denied: false,
    });
    // Without the host's listeners (a remote world), a named loopback target is never claimed.
    expect(classifyRun({ exitCode: 7, stdout: '', stderr: refused(8800) }, ws, 'full')).toMatchObject({
      denied: false,
    });
  });

  it('curl and wget failures count as network denials', () => {
    for (const text of [
      "curl: (7) Failed to connect to 93.184.215.14 port 80 after 0 ms: Couldn't connect to server",
      'curl: (6) Could not resolve host: example.com',
      'wget: unable to resolve host address ‘example.com’',
      'connect: Network is unreachable',
    ]) {
      expect(run(7, text)).toMatchObject({ denied: true, denial: 'network' });
    }
  });

  it('the runner’s own failure is told by the channel, never by stderr text; danger-full-access never reports a denial', () => {
    const lost = { exitCode: null, stderr: '', stdout: '', startError: 'WORLD_DISCONNECTED' };
    expect(classifyRun(lost, ws, 'full')).toMatchObject({ runnerFailed: true, denied: false });
    // A command that prints what a runner failure would look like is still the command's own failure.
    expect(run(1, "bwrap: Can't find source path /nope: No such file or directory")).toMatchObject({
      runnerFailed: false,
    });
    expect(
      run(1, 'Read-only file system', { mode: 'danger-full-access', writableRoots: [], network: true }),
    ).toMatchObject({
      denied: false,
    });
  });
});

describe('SandboxPolicyService', () => {
  it('resolves modes, roots and network; per-owner overrides; fences', () => {
    const p = new SandboxPolicyService({ workspace: '/work/ws' });
    const me = createOwner('me');
    const scope = p.resolve(me).scope;
    expect(p.resolve(me)).toMatchObject({
      mode: 'workspace-write',
      writableRoots: ['/work/ws'],
      network: false,
      scope,
    });
    expect(p.resolve(me, 'read-only')).toMatchObject({
      mode: 'read-only',
      writableRoots: [],
      readableRoots: ['/work/ws'],
      network: false,
      scope,
    });
    expect(p.resolve(createOwner('me')).scope).not.toBe(scope); // each agent its own world, whatever its name
    expect(p.resolve(me, 'danger-full-access').network).toBe(true);
    p.setMode(me, 'read-only');
    expect(p.modeFor(me)).toBe('read-only');
    expect(p.modeFor(createOwner('other'))).toBe('workspace-write');
    const release = p.fence(me);
    expect(codeOf(() => p.setMode(me, 'danger-full-access'))).toBe('SANDBOX_FENCED');
    release();
    release();
    p.setMode(me, 'danger-full-access');
    expect(p.modeFor(me)).toBe('danger-full-access');
    expect(isWider('danger-full-access', 'workspace-write')).toBe(true);
    expect(isWider('read-only', 'workspace-write')).toBe(false);
  });

  it('rejects bad options with INVALID_ARGUMENT', () => {
    expect(codeOf(() => new SandboxPolicyService({ workspace: 'relative' }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => new SandboxPolicyService({ workspace: '/w', mode: 'open' as 'read-only' }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(codeOf(() => new BubblewrapSandbox('bwrap'))).toBe('INVALID_ARGUMENT');
  });
});

describe('BubblewrapSandbox', () => {
  it('is available here (bubblewrap installed), and says how to fix a missing runner', () => {
    expect(new BubblewrapSandbox().unavailableReason()).toBeNull();
    const missing = new BubblewrapSandbox({ bwrapPath: '/nonexistent/bwrap' });
    expect(missing.available()).toBe(false);
    expect(missing.unavailableReason()).toMatch(/apt-get install bubblewrap.*danger-full-access/);
    expect(codeOf(() => missing.world(ws, new LocalSubprocessRuntime()))).toBe('SANDBOX_UNAVAILABLE');
  });

  it('builds the documented fence: ro root, rw roots and output dirs, fresh /tmp, no network, no caps, own pids and session', () => {
    const { args } = fenceArgs({ ...ws, writableRoots: ['/tmp'] }, { outputDirs: ['/var/tmp'] });
    expect(args.slice(0, 7)).toEqual(['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
    expect(args).toEqual(expect.arrayContaining(['--tmpfs', '/tmp', '--tmpfs', '/run']));
    expect(args).toEqual(expect.arrayContaining(['--bind', '/tmp', '/tmp', '--bind', '/var/tmp', '/var/tmp']));
    for (const flag of ['--unshare-net', '--cap-drop', '--unshare-pid', '--die-with-parent', '--new-session']) {
      expect(args).toContain(flag);
    }
    expect(fenceArgs({ ...ws, network: true }, { outputDirs: [] }).args).not.toContain('--unshare-net');
    expect(fenceArgs({ ...ws, network: true }, { outputDirs: [] }).args).toEqual(
      expect.arrayContaining(['--tmpfs', '/run']),
    );
    expect(fenceArgs({ ...ws, writableRoots: ['/nonexistent-root'] }, { outputDirs: [] }).enforcement).toBe('partial');
    const { argv } = worldArgv(ws, {
      bwrapPath: '/usr/bin/bwrap',
      outputDirs: [],
      node: '/usr/bin/node',
      entry: '/srv.mjs',
    });
    expect(argv.slice(0, 2)).toEqual(['sh', '-c']);
    expect(argv.slice(-6)).toEqual(['--', '/usr/bin/node', '/srv.mjs', '--containment', 'auto', CGROUP_SLOT]);
  });
});

describe('a world whose own programs live under a directory the fence replaces', () => {
  it('starts (its top dir in /tmp is bound read-only) and the writable root inside it stays writable', async () => {
    const top = mkdtempSync('/tmp/dsh-install-');
    const host = new LocalSubprocessRuntime();
    try {
      // A checkout (or boot cache) in /tmp: the server bundle there, the workspace beside it.
      mkdirSync(join(top, 'dist'));
      copyFileSync(SERVER_ENTRY, join(top, 'dist', 'runtime-server.mjs'));
      const workspace = join(top, 'ws');
      mkdirSync(workspace);
      const { args } = fenceArgs(
        { ...ws, writableRoots: [workspace] },
        { outputDirs: [], programs: [join(top, 'dist', 'runtime-server.mjs')] },
      );
      // Only the program's own directory is bound (no node_modules above it here), not all of `top`.
      expect(args.indexOf(join(top, 'dist'))).toBeGreaterThan(-1);
      expect(args).not.toContain(top);
      expect(args.indexOf(join(top, 'dist'))).toBeLessThan(args.indexOf(workspace)); // rw binds come after
      const sandbox = new BubblewrapSandbox({
        farSide: { node: process.execPath, entry: join(top, 'dist', 'runtime-server.mjs'), unavailable: null },
      });
      const world = sandbox.world({ ...ws, writableRoots: [workspace] }, host);
      const h = world.runtime.spawn({
        argv: ['sh', '-c', `echo ok > ${workspace}/f && cat ${workspace}/f; touch ${top}/dist/x 2>&1 || true`],
        cwd: workspace,
        env: {},
        stdin: { kind: 'ignore' },
        stdout: { kind: 'collect', maxBytes: 4096 },
        stderr: { kind: 'collect', maxBytes: 4096 },
        graceMs: 500,
      });
      expect(await h.done).toMatchObject({ exitCode: 0, error: null });
      expect(h.stdoutReader?.read(0).text).toMatch(/^ok\n.*Read-only file system/s);
      await sandbox.dispose();
    } finally {
      await host.dispose();
      rmSync(top, { recursive: true, force: true });
    }
  });
});
