import { Composition } from '@dsh/core';
import { parseStat, signalGroup, signalProcess, subprocessLocalPlugin, treeMembers } from '@dsh/subprocess-local';
import { describe, expect, it } from 'vitest';
import { isAlive, spec, waitFor } from './helpers.js';

describe('subprocess-local plugin', () => {
  it('provides ctx.subprocess; reload keeps processes alive; teardown ends them', async () => {
    const c = await Composition.create([subprocessLocalPlugin()]);
    try {
      const rt = c.ctx.get('subprocess');
      const h = rt.spawn(spec(['sleep', '100']));
      await waitFor(() => h.pid !== undefined && isAlive(h.pid), 'sleep running');
      await c.reload('subprocess-local');
      expect(c.ctx.get('subprocess')).toBe(rt);
      expect(isAlive(h.pid as number)).toBe(true);
      await c.dispose();
      expect(isAlive(h.pid as number)).toBe(false);
      expect((await h.done).signal).toBe('SIGTERM');
    } finally {
      await c.dispose();
    }
  });
});

describe('signal guards and /proc parsing', () => {
  it('never signals pid 0, 1, negatives, or this process', () => {
    for (const target of [0, 1, -1, -5, process.pid, Number.NaN, 1.5]) {
      expect(signalProcess(target, 0)).toBe(false);
      expect(signalGroup(target, 0)).toBe(false);
    }
  });

  it('parses stat lines whose command contains spaces and parentheses', () => {
    const tail = '0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 777 1000 100';
    const line = `4242 (we ird) (x)) S 10 4242 4242 ${tail}`;
    expect(parseStat(line)).toEqual({ pid: 4242, ppid: 10, pgid: 4242, sid: 4242, state: 'S', start: 777 });
    expect(parseStat('garbage')).toBeNull();
  });

  it('finds members by session, group and parent link', () => {
    const procs = [
      { pid: 100, ppid: 1, pgid: 100, sid: 100, state: 'S', start: 50 },
      { pid: 101, ppid: 100, pgid: 101, sid: 100, state: 'S', start: 51 }, // own group, same session
      { pid: 102, ppid: 101, pgid: 102, sid: 102, state: 'S', start: 52 }, // setsid child of a member
      { pid: 200, ppid: 1, pgid: 200, sid: 200, state: 'S', start: 10 }, // unrelated
    ];
    expect(treeMembers(procs, 100).map((p) => p.pid)).toEqual([100, 101, 102]);
    expect(treeMembers(procs, 100, 50).map((p) => p.pid)).toEqual([100, 101, 102]);
    expect(treeMembers(procs, 999)).toEqual([]);
    // pid 100 now belongs to a process started at another time: the number was reused, our tree is gone
    expect(treeMembers(procs, 100, 49)).toEqual([]);
  });
});
