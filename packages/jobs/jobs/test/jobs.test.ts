import { createOwner } from '@dsh/core';
import { type JobResult, type JobRun, JobService } from '@dsh/jobs';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../test/support.js';

/** A controllable unit of work (the jobs layer is generic; real processes are tested in tool-bash). */
function work() {
  let finish!: (r: JobResult) => void;
  let fail!: (e: unknown) => void;
  let ended = false;
  const done = new Promise<JobResult>((resolve, reject) => {
    finish = (r) => {
      ended = true;
      resolve(r);
    };
    fail = reject;
  });
  const chunks: string[] = [];
  let cancelled = 0;
  let started = 0;
  const run = (): JobRun => {
    started += 1;
    return {
      readOutput: () => ({ text: chunks.splice(0).join(''), lossy: false }),
      cancel: async () => {
        cancelled += 1;
        if (ended) return false; // ended by itself first
        finish({ ok: false, text: 'cancelled', data: { signal: 'SIGTERM' }, cancelled: true });
        return true;
      },
      done,
    };
  };
  return {
    run,
    write: (t: string) => chunks.push(t),
    finish,
    fail,
    get cancelled() {
      return cancelled;
    },
    get started() {
      return started;
    },
  };
}

describe('JobService', () => {
  it('starts, reads incrementally without repeats, and records the result', async () => {
    const jobs = new JobService();
    const me = createOwner('me');
    const w = work();
    const id = jobs.start(me, { title: 'build', run: w.run });
    expect(jobs.list(me)).toMatchObject([{ id, title: 'build', state: 'running' }]);
    w.write('one\n');
    expect(jobs.output(me, id).text).toBe('one\n');
    expect(jobs.output(me, id).text).toBe('');
    w.write('two\n');
    w.finish({ ok: true, text: '[exit code: 0]', data: { exit_code: 0 } });
    const info = await jobs.wait(me, id);
    expect(info).toMatchObject({ state: 'succeeded', result: { ok: true, data: { exit_code: 0 } } });
    expect(jobs.output(me, id)).toMatchObject({ text: 'two\n', info: { state: 'succeeded' } });
  });

  it('hides jobs from other owners: a foreign id is refused exactly like an unknown one', async () => {
    const jobs = new JobService();
    const alice = createOwner('agent');
    const bob = createOwner('agent'); // same name, different owner
    const w = work();
    const id = jobs.start(alice, { title: 'secret', run: w.run });
    expect(jobs.list(bob)).toEqual([]);
    expect(await codeOf(() => jobs.output(bob, id))).toBe('JOB_NOT_FOUND');
    expect(await codeOf(() => jobs.kill(bob, id))).toBe('JOB_NOT_FOUND');
    expect(await codeOf(() => jobs.wait(bob, id))).toBe('JOB_NOT_FOUND');
    expect(await codeOf(() => jobs.output(bob, 'job-00000000'))).toBe('JOB_NOT_FOUND');
    expect(w.cancelled).toBe(0);
    expect(await codeOf(() => jobs.list({ name: 'forged' } as never))).toBe('INVALID_ARGUMENT');
    await jobs.dispose();
  });

  it('queues past the per-owner limit, starts the next when a slot frees, and refuses when the queue is full', async () => {
    const jobs = new JobService({ maxRunningPerOwner: 1, maxQueuedPerOwner: 1 });
    const me = createOwner('me');
    const other = createOwner('other');
    const a = work();
    const b = work();
    const idA = jobs.start(me, { title: 'a', run: a.run });
    const idB = jobs.start(me, { title: 'b', run: b.run });
    expect(jobs.list(me).map((j) => j.state)).toEqual(['running', 'queued']);
    expect(b.started).toBe(0);
    expect(await codeOf(() => jobs.start(me, { title: 'c', run: work().run }))).toBe('JOB_QUEUE_FULL');
    const o = work();
    jobs.start(other, { title: 'theirs', run: o.run }); // limits are per owner
    expect(o.started).toBe(1);
    a.finish({ ok: true, text: '', data: {} });
    await jobs.wait(me, idA);
    expect(b.started).toBe(1);
    expect(jobs.output(me, idB).info.state).toBe('running');
    await jobs.dispose();
  });

  it('kill: a queued job never starts; a running one is cancelled; false once ended', async () => {
    const jobs = new JobService({ maxRunningPerOwner: 1 });
    const me = createOwner('me');
    const a = work();
    const b = work();
    const idA = jobs.start(me, { title: 'a', run: a.run });
    const idB = jobs.start(me, { title: 'b', run: b.run });
    expect(await jobs.kill(me, idB)).toBe(true);
    expect(await jobs.kill(me, idA)).toBe(true);
    expect(a.cancelled).toBe(1);
    expect(b.started).toBe(0);
    expect(jobs.list(me).map((j) => j.state)).toEqual(['killed', 'killed']);
    expect(await jobs.kill(me, idA)).toBe(false);
  });

  it('killing a queued job frees no slot: the limit holds; dispose starts nothing queued', async () => {
    const jobs = new JobService({ maxRunningPerOwner: 1 });
    const me = createOwner('me');
    const [a, b, c] = [work(), work(), work()];
    jobs.start(me, { title: 'a', run: a.run });
    const idB = jobs.start(me, { title: 'b', run: b.run });
    jobs.start(me, { title: 'c', run: c.run });
    expect(await jobs.kill(me, idB)).toBe(true);
    expect(jobs.list(me).map((j) => j.state)).toEqual(['running', 'killed', 'queued']);
    expect(c.started).toBe(0);
    await jobs.dispose();
    expect(c.started).toBe(0);
    expect(jobs.list(me).map((j) => j.state)).toEqual(['killed', 'killed', 'killed']);
  });

  it('a kill racing a natural end reports the natural end: false, and the job keeps its result', async () => {
    const jobs = new JobService();
    const me = createOwner('me');
    const w = work();
    const id = jobs.start(me, { title: 'quick', run: w.run });
    w.finish({ ok: true, text: '[exit code: 0]', data: { exit_code: 0 } });
    expect(await jobs.kill(me, id)).toBe(false);
    expect(jobs.info(me, id)).toMatchObject({ state: 'succeeded', result: { ok: true } });
  });

  it('info() does not consume output; kill of an unknown id rejects (never throws synchronously)', async () => {
    const jobs = new JobService();
    const me = createOwner('me');
    const w = work();
    const id = jobs.start(me, { title: 'x', run: w.run });
    w.write('keep me\n');
    expect(jobs.info(me, id).state).toBe('running');
    expect(jobs.output(me, id).text).toBe('keep me\n');
    const killing = jobs.kill(me, 'job-nope');
    await expect(killing).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    await jobs.dispose();
  });

  it('a run that throws or a done that rejects marks the job failed', async () => {
    const jobs = new JobService();
    const me = createOwner('me');
    const thrower = jobs.start(me, {
      title: 't',
      run: () => {
        throw new Error('no fence');
      },
    });
    expect(jobs.output(me, thrower).info).toMatchObject({ state: 'failed', result: { ok: false } });
    expect(jobs.output(me, thrower).info.result?.text).toMatch(/no fence/);
    const w = work();
    const rejecting = jobs.start(me, { title: 'r', run: w.run });
    w.fail(new Error('lost'));
    expect(await jobs.wait(me, rejecting)).toMatchObject({ state: 'failed' });
  });

  it('wait returns the current info when its timeout passes first', async () => {
    const jobs = new JobService();
    const me = createOwner('me');
    const id = jobs.start(me, { title: 'slow', run: work().run });
    expect(await jobs.wait(me, id, { timeoutMs: 10 })).toMatchObject({ state: 'running', endedAt: null });
    expect(await jobs.wait(me, id, { signal: AbortSignal.abort() })).toMatchObject({ state: 'running' });
    await jobs.dispose();
    expect(jobs.list(me)[0]?.state).toBe('killed');
    expect(await codeOf(() => jobs.start(me, { title: 'late', run: work().run }))).toBe('DISPOSED');
  });

  it('retains ended jobs by count and by age', async () => {
    const jobs = new JobService({ retainCount: 2 });
    const me = createOwner('me');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const w = work();
      ids.push(jobs.start(me, { title: `j${i}`, run: w.run }));
      w.finish({ ok: true, text: '', data: {} });
      await jobs.wait(me, ids[i] as string);
    }
    expect(jobs.list(me).map((j) => j.title)).toEqual(['j1', 'j2']);
    expect(await codeOf(() => jobs.output(me, ids[0] as string))).toBe('JOB_NOT_FOUND');
    const short = new JobService({ retainMs: 1 });
    const w = work();
    const id = short.start(me, { title: 'x', run: w.run });
    w.finish({ ok: true, text: '', data: {} });
    await short.wait(me, id);
    const until = Date.now() + 20_000;
    while (short.list(me).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    expect(short.list(me)).toEqual([]);
  });

  it('rejects bad options and bad specs with INVALID_ARGUMENT', async () => {
    expect(await codeOf(() => new JobService({ maxRunningPerOwner: 0 }))).toBe('INVALID_ARGUMENT');
    const jobs = new JobService();
    expect(await codeOf(() => jobs.start(createOwner('x'), { title: 5 } as never))).toBe('INVALID_ARGUMENT');
  });
});
