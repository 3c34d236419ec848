import { describe, expect, it } from 'vitest';
import { isAlive, pidsIn, runtime, spec, tracker, waitFor } from './helpers.js';

/** Waits until the fixture has printed `count` pids on stdout. */
async function printedPids(h: { stdoutReader: { read(o: number): { text: string } } | null }, count: number) {
  return waitFor(() => {
    const pids = pidsIn(h.stdoutReader?.read(0).text ?? '');
    return pids.length >= count ? pids : null;
  }, `${count} pids`);
}

describe('tree termination', () => {
  it('terminate() ends the child and its grandchildren', async () => {
    const h = runtime().spawn(spec(['sh', '-c', 'sleep 100 & echo $!; sleep 100 & echo $!; wait']));
    const pids = await printedPids(h, 2);
    expect(pids.every(isAlive)).toBe(true);
    await h.terminate();
    expect(await h.done).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    for (const pid of [...pids, h.pid as number]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('a TERM-ignoring tree ends by SIGKILL after the grace', async () => {
    const h = runtime().spawn(
      spec(['sh', '-c', 'trap "" TERM; sleep 100 & echo $!; echo ready; wait'], { graceMs: 300 }),
    );
    const [grandchild] = await printedPids(h, 1);
    await waitFor(() => h.stdoutReader?.read(0).text.includes('ready'), 'ready');
    await h.terminate();
    expect(await h.done).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(isAlive(grandchild as number)).toBe(false);
  });

  it('every member gets SIGTERM once: a trap runs once, also when an escapee is ended beside the group', async () => {
    const h = runtime().spawn(
      spec(
        [
          'bash',
          '-c',
          "setsid sleep 100 & trap 'echo trapped; sleep 0.3; exit 0' TERM; echo ready; while :; do sleep 0.05; done 2>/dev/null",
        ],
        { graceMs: 2_000 },
      ),
    );
    await waitFor(() => h.stdoutReader?.read(0).text.includes('ready'), 'ready');
    await h.terminate();
    expect(await h.done).toMatchObject({ exitCode: 0 });
    expect(h.stdoutReader?.read(0).text).toBe('ready\ntrapped\n');
  });

  it('terminate() is idempotent and a no-op once the tree is gone', async () => {
    const h = runtime().spawn(spec(['sleep', '100']));
    const first = h.terminate();
    expect(h.terminate()).toBe(first);
    await first;
    await h.terminate();
    const finished = runtime().spawn(spec(['true']));
    await finished.done;
    await finished.waitForExit();
    await finished.terminate();
    expect(await finished.done).toEqual({ exitCode: 0, signal: null, error: null });
  });

  it('also ends members that left the process group but stayed in the session', async () => {
    const script = 'perl -e \'$|=1; setpgrp(0,0); print "$$\\n"; sleep 100\' & wait';
    const h = runtime().spawn(spec(['sh', '-c', script]));
    const [escapee] = await printedPids(h, 1);
    await h.terminate();
    expect(isAlive(escapee as number)).toBe(false);
  });
});

describe('post-exit drain and whole-tree waiting', () => {
  it('`sleep 30 & echo hi` settles done with hi while waitForExit stays pending', async () => {
    const h = runtime().spawn(spec(['sh', '-c', 'sleep 30 & echo $!; echo hi'], { graceMs: 200 }));
    const doneState = tracker(h.done);
    expect(await h.exit).toEqual({ exitCode: 0, signal: null, error: null });
    expect(doneState.settled).toBe(false); // exit facts arrive before the post-exit drain ends
    const outcome = await h.done;
    expect(outcome).toEqual({ exitCode: 0, signal: null, error: null });
    const lines = h.stdoutReader?.read(0).text.split('\n') ?? [];
    expect(lines[1]).toBe('hi');
    const sleeper = Number(lines[0]);
    expect(isAlive(sleeper)).toBe(true); // done settled while the grandchild still holds the pipe
    const wait = h.waitForExit();
    const state = tracker(wait);
    await new Promise((r) => setTimeout(r, 300));
    expect(state.settled).toBe(false);
    expect(isAlive(sleeper)).toBe(true);
    await h.terminate();
    await wait;
    expect(isAlive(sleeper)).toBe(false);
  });

  it('waitForExit covers the whole tree, not only the direct child', async () => {
    const h = runtime().spawn(
      spec(['sh', '-c', '(sleep 0.5; echo late) & echo $!'], { stdout: { kind: 'pipe' }, graceMs: 100 }),
    );
    let text = '';
    h.stdout?.on('data', (c: Buffer) => {
      text += c.toString();
    });
    await h.done;
    const [subshell] = await waitFor(() => (pidsIn(text).length > 0 ? pidsIn(text) : null), 'subshell pid');
    expect(isAlive(subshell as number)).toBe(true);
    await h.waitForExit();
    expect(isAlive(subshell as number)).toBe(false);
    await waitFor(() => text.includes('late'), 'late output');
  });

  it('waitForExit rejects with ABORTED when its signal aborts first', async () => {
    const h = runtime().spawn(spec(['sleep', '100']));
    await waitFor(() => h.pid, 'the pid'); // known at once locally; when the far side answers over a channel
    const ac = new AbortController();
    const wait = h.waitForExit(ac.signal);
    ac.abort();
    await expect(wait).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(h.waitForExit(AbortSignal.abort())).rejects.toMatchObject({ code: 'ABORTED' });
    expect(isAlive(h.pid as number)).toBe(true);
  });
});

describe('abort and dispose', () => {
  it('aborting the spec signal terminates the tree', async () => {
    const ac = new AbortController();
    const h = runtime().spawn(spec(['sh', '-c', 'sleep 100 & echo $!; wait'], { signal: ac.signal }));
    const [grandchild] = await printedPids(h, 1);
    ac.abort();
    expect((await h.done).signal).toBe('SIGTERM');
    await h.waitForExit();
    expect(isAlive(grandchild as number)).toBe(false);
  });

  it('dispose() ends every live tree, including ones whose direct child already exited', async () => {
    const rt = runtime();
    const running = rt.spawn(spec(['sh', '-c', 'sleep 100 & echo $!; wait']));
    const leftover = rt.spawn(spec(['sh', '-c', 'sleep 100 & echo $!'], { graceMs: 100 }));
    const [a] = await printedPids(running, 1);
    await leftover.done;
    const [b] = pidsIn(leftover.stdoutReader?.read(0).text ?? '');
    expect(isAlive(a as number) && isAlive(b as number)).toBe(true);
    await rt.dispose();
    expect(isAlive(a as number)).toBe(false);
    expect(isAlive(b as number)).toBe(false);
    expect(isAlive(running.pid as number)).toBe(false);
    await rt.dispose();
  });
});
