/**
 * The sandbox markers of issue 19: a denial names what was refused (a path, a system call), and a
 * world limit the run hit has a marker of its own; both parse back from the text alone.
 */
import { parseShellResult, renderShellResult, type ShellExecResult } from '@dsh/shell';
import { describe, expect, it } from 'vitest';

const empty = { text: '', truncated: false, totalBytes: 0, spillPath: null };

function result(sandbox: ShellExecResult['sandbox'], exit: { exitCode: number | null; signal: string | null }) {
  return {
    ...exit,
    startError: null,
    timedOut: false,
    aborted: false,
    stdout: empty,
    stderr: empty,
    durationMs: 1,
    sandbox,
  };
}

describe('sandbox markers', () => {
  it('a syscall denial names the call and round-trips', () => {
    const text = renderShellResult(
      result(
        {
          mode: 'workspace-write',
          denied: true,
          denial: 'syscall',
          denialDetail: 'ptrace',
          enforcement: 'full',
          runnerFailed: false,
        },
        { exitCode: 1, signal: null },
      ),
    );
    expect(text).toContain('[sandbox denied: syscall ptrace; mode: workspace-write]');
    expect(parseShellResult(text)).toMatchObject({
      sandboxDenied: true,
      denial: 'syscall',
      denialDetail: 'ptrace',
      sandboxMode: 'workspace-write',
      exitCode: 1,
    });
  });

  it('a file denial names the path (its ; and ] cannot end the marker early)', () => {
    const text = renderShellResult(
      result(
        {
          mode: 'read-only',
          denied: true,
          denial: 'file',
          denialDetail: '/root/.ssh/id;x]',
          enforcement: 'full',
          runnerFailed: false,
        },
        { exitCode: 1, signal: null },
      ),
    );
    expect(parseShellResult(text)).toMatchObject({
      denial: 'file',
      denialDetail: '/root/.ssh/id,x)',
      sandboxMode: 'read-only',
    });
  });

  it('limits: pids and out of memory', () => {
    const box = {
      mode: 'workspace-write' as const,
      denied: false,
      denial: null,
      enforcement: 'full' as const,
      runnerFailed: false,
    };
    const pids = renderShellResult(result({ ...box, limit: 'pids' }, { exitCode: 254, signal: null }));
    expect(pids).toContain('[sandbox limit: pids]');
    expect(parseShellResult(pids)).toMatchObject({ sandboxLimit: 'pids', exitCode: 254 });
    const oom = renderShellResult(result({ ...box, limit: 'memory' }, { exitCode: null, signal: 'SIGKILL' }));
    expect(oom).toContain('[killed: out of memory in the sandbox]');
    expect(parseShellResult(oom)).toMatchObject({ sandboxLimit: 'memory', signal: 'SIGKILL' });
    // A body line that looks like the marker does not count.
    const fake = renderShellResult({
      ...result(null, { exitCode: 0, signal: null }),
      stdout: { ...empty, text: '[sandbox limit: pids]\n' },
    });
    expect(parseShellResult(fake).sandboxLimit).toBeNull();
  });
});
