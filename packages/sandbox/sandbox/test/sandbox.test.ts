import { createOwner } from '@dsh/core';
import { BubblewrapSandbox, classifyRun, isWider, type ResolvedSandbox, SandboxPolicyService } from '@dsh/sandbox';
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

  it('the runner’s own failure is told apart; danger-full-access never reports a denial', () => {
    expect(run(1, "bwrap: Can't find source path /nope: No such file or directory")).toMatchObject({
      runnerFailed: true,
      denied: false,
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
    expect(p.resolve(me)).toEqual({ mode: 'workspace-write', writableRoots: ['/work/ws'], network: false });
    expect(p.resolve(me, 'read-only')).toEqual({ mode: 'read-only', writableRoots: [], network: false });
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
    const missing = new BubblewrapSandbox('/nonexistent/bwrap');
    expect(missing.available()).toBe(false);
    expect(missing.unavailableReason()).toMatch(/apt-get install bubblewrap.*danger-full-access/);
    expect(codeOf(() => missing.confine(['true'], ws))).toBe('SANDBOX_UNAVAILABLE');
  });

  it('builds the documented fence: ro root, rw roots, fresh /tmp, no network, own session unless on a terminal', () => {
    const box = new BubblewrapSandbox();
    const { argv } = box.confine(['bash', '-c', 'x'], { ...ws, writableRoots: ['/tmp'] });
    expect(argv.slice(0, 9)).toEqual([
      '/usr/bin/bwrap',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
    ]);
    expect(argv).toContain('--unshare-net');
    expect(argv).toContain('--new-session');
    expect(argv.slice(-4)).toEqual(['--', 'bash', '-c', 'x']);
    const term = box.confine(['bash'], { ...ws, network: true }, { terminal: true }).argv;
    expect(term).not.toContain('--new-session');
    expect(term).not.toContain('--unshare-net');
    expect(box.confine(['true'], { ...ws, writableRoots: ['/nonexistent-root'] }).enforcement).toBe('partial');
  });
});
