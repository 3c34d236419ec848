/**
 * A person watching jobs (dsh web): a watch cursor reads a job's output from the oldest text
 * kept, without taking any of it from the owner's job_output; the overview lists every owner's
 * jobs with their owner.
 */
import { createOwner } from '@dsh/core';
import type { JobRead } from '@dsh/jobs';
import { describe, expect, it } from 'vitest';
import { rig, waitFor } from './helpers.js';

describe('watching jobs', () => {
  it('a watch cursor sees all of the output, and job_output still hands the owner all of it', async () => {
    const r = await rig();
    const started = await r.call('bash', {
      command: 'for i in 1 2 3 4; do echo "line $i"; sleep 0.1; done; echo late >&2',
      run_in_background: true,
    });
    const id = started.data.job_id as string;
    const jobs = r.composition.ctx.get('jobs');
    await waitFor(() => jobs.info(r.agent, id).state !== 'queued', 'the job to start');
    let watched = '';
    const read = jobs.watch(r.agent, id) as () => JobRead;
    expect(read).toBeTypeOf('function');
    // Two watchers do not share a cursor either.
    const second = jobs.watch(r.agent, id) as () => JobRead;
    const owner: string[] = [];
    await waitFor(async () => {
      watched += read().text;
      owner.push((await r.call('job_output', { job_id: id })).text);
      return jobs.info(r.agent, id).state !== 'running';
    }, 'the job to end');
    watched += read().text;
    owner.push((await r.call('job_output', { job_id: id })).text);
    const lines = (t: string) => t.split('\n').filter((l) => l.startsWith('line '));
    expect(lines(watched)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(watched).toContain('[stderr]\nlate\n[/stderr]');
    expect(lines(owner.join('\n'))).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(lines(second().text)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
  });

  it('overview lists every owner job with its owner; a foreign id cannot be watched', async () => {
    const r = await rig();
    const other = createOwner('other');
    const a = (await r.call('bash', { command: 'true', run_in_background: true })).data.job_id as string;
    const b = (await r.call('bash', { command: 'true', run_in_background: true }, other)).data.job_id as string;
    const jobs = r.composition.ctx.get('jobs');
    expect(jobs.overview().map((j) => [j.info.id, j.owner.name])).toEqual([
      [a, 'agent-1'],
      [b, 'other'],
    ]);
    expect(jobs.list(r.agent).map((j) => j.id)).toEqual([a]);
    expect(() => jobs.watch(r.agent, b)).toThrow(expect.objectContaining({ code: 'JOB_NOT_FOUND' }));
  });
});
