import { createOwner } from '@dsh/core';
import { describe, expect, it } from 'vitest';
import { isAlive, rig, waitFor } from './helpers.js';

describe('background jobs through the tools', () => {
  it('run_in_background returns a job id; job_output reads increments that never repeat, then the markers', async () => {
    const r = await rig();
    const started = await r.call('bash', {
      command: 'for i in 1 2 3; do echo "line $i"; sleep 0.15; done; echo oops >&2; exit 2',
      run_in_background: true,
    });
    expect(started.isError).toBe(false);
    const jobId = started.data.job_id as string;
    expect(jobId).toMatch(/^job-[0-9a-f]{8}$/);
    expect(started.text).toContain(`job_output {"job_id":"${jobId}"}`);
    const seen: string[] = [];
    const final = await waitFor(async () => {
      const out = await r.call('job_output', { job_id: jobId });
      expect(out.isError).toBe(false);
      seen.push(out.text);
      return out.data.state === 'running' ? null : out;
    }, 'job end');
    const lines = seen
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('line '));
    expect(lines).toEqual(['line 1', 'line 2', 'line 3']);
    expect(final.data).toMatchObject({ state: 'failed', exit_code: 2 });
    expect(final.text).toMatch(/\[job job-[0-9a-f]+ failed after \d+s\]\n\[exit code: 2\]$/);
    expect(seen.join('\n')).toContain('[stderr]\noops\n[/stderr]');
    const again = await r.call('job_output', { job_id: jobId });
    expect(again.text).not.toContain('line ');
  });

  it('job_kill is true while running, then reports the job already ended', async () => {
    const r = await rig();
    const started = await r.call('bash', { command: 'sleep 100 & echo $!; wait', run_in_background: true });
    const jobId = started.data.job_id as string;
    const pid = await waitFor(async () => {
      const out = await r.call('job_output', { job_id: jobId });
      return Number.parseInt(out.text, 10) || null;
    }, 'grandchild pid');
    const killed = await r.call('job_kill', { job_id: jobId });
    expect(killed).toMatchObject({ isError: false, data: { killed: true, state: 'killed' } });
    expect(isAlive(pid)).toBe(false);
    const again = await r.call('job_kill', { job_id: jobId });
    expect(again).toMatchObject({ isError: false, data: { killed: false } });
    expect(again.text).toMatch(/already ended/);
    const list = await r.call('job_list', {});
    expect(list.text).toMatch(new RegExp(`^${jobId}  killed`));
  });

  it('a second agent can neither see nor kill the first agent’s job', async () => {
    const r = await rig();
    const started = await r.call('bash', { command: 'sleep 100', run_in_background: true });
    const jobId = started.data.job_id as string;
    const other = createOwner('agent-1'); // same name, different identity
    expect((await r.call('job_list', {}, other)).text).toMatch(/^No background jobs/);
    for (const tool of ['job_output', 'job_kill']) {
      const res = await r.call(tool, { job_id: jobId }, other);
      expect(res).toMatchObject({ isError: true, data: { error: { code: 'JOB_NOT_FOUND' } } });
    }
    expect((await r.call('job_output', { job_id: jobId })).data.state).toBe('running');
    const unknown = await r.call('job_output', { job_id: 'job-ffffffff' });
    expect(unknown.text).toMatch(/job_list/);
  });

  it('job tools reject bad arguments with isError', async () => {
    const r = await rig();
    for (const [tool, args] of [
      ['job_output', {}],
      ['job_kill', { job_id: 7 }],
      ['job_list', { all: true }],
    ] as const) {
      const res = await r.call(tool, args);
      expect(res).toMatchObject({ isError: true, data: { error: { code: 'INVALID_ARGUMENT' } } });
    }
  });

  it('a background start in a missing workdir is refused up front', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'true', workdir: 'missing', run_in_background: true });
    expect(res).toMatchObject({ isError: true, data: { error: { code: 'WORKDIR_NOT_FOUND' } } });
  });

  it('reload of bash-local and tool-bash leaves a running job alive; teardown ends it', async () => {
    const r = await rig();
    const started = await r.call('bash', { command: 'echo $$; sleep 100', run_in_background: true });
    const jobId = started.data.job_id as string;
    const pid = await waitFor(
      async () => Number.parseInt((await r.call('job_output', { job_id: jobId })).text, 10) || null,
    );
    await r.composition.reload('bash-local');
    await r.composition.reload('tool-bash');
    expect(isAlive(pid)).toBe(true);
    expect((await r.call('job_output', { job_id: jobId })).data.state).toBe('running');
    expect((await r.call('bash', { command: 'echo still works' })).text).toContain('still works');
    await r.composition.dispose();
    expect(isAlive(pid)).toBe(false);
  });
});

describe('job_kill keeps unread output', () => {
  it('output written before the kill is still there for job_output', async () => {
    const r = await rig();
    const ready = `${r.workspace}/ready`;
    const started = await r.call('bash', {
      command: `echo important-line; touch ${ready}; sleep 30`,
      run_in_background: true,
    });
    const jobId = started.data.job_id as string;
    const { existsSync } = await import('node:fs');
    await waitFor(() => existsSync(ready), 'ready file');
    expect((await r.call('job_kill', { job_id: jobId })).data.killed).toBe(true);
    const out = await r.call('job_output', { job_id: jobId });
    expect(out.text).toContain('important-line');
    expect(out.data.state).toBe('killed');
  });
});
