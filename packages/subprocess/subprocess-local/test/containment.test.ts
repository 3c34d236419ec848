import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { ownCgroupDir } from '@dsh/subprocess-local';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, pidsIn, runtime, spec, tracker, waitFor } from './helpers.js';

/** Prints the pid of a `sleep` that left the session and lost its parent: no link back to the tree. */
const ESCAPE = "setsid sh -c 'sleep 100 & echo $!'; sleep 0.2";
const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

async function escapeeOf(h: { stdoutReader: { read(o: number): { text: string } } | null }): Promise<number> {
  const [pid] = await waitFor(() => {
    const pids = pidsIn(h.stdoutReader?.read(0).text ?? '');
    return pids.length > 0 ? pids : null;
  }, 'escapee pid');
  strays.push(pid as number);
  return pid as number;
}

describe('cgroup containment', () => {
  it('is in use on this machine (a writable cgroup v2 tree with cgroup.kill)', () => {
    expect(runtime().containment).toBe('cgroup');
  });

  it('terminate() ends a setsid + double-fork escapee that session tracking cannot see', async () => {
    const h = runtime().spawn(spec(['sh', '-c', ESCAPE], { graceMs: 200 }));
    const escapee = await escapeeOf(h);
    expect(sessionOf(escapee)).not.toBe(h.pid);
    await h.done;
    expect(isAlive(escapee)).toBe(true);
    const wait = tracker(h.waitForExit());
    await new Promise((r) => setTimeout(r, 300));
    expect(wait.settled).toBe(false); // the escapee still counts as a member
    await h.terminate();
    await h.waitForExit();
    expect(isAlive(escapee)).toBe(false);
  });

  it("with containment 'session' the same escapee is out of reach (the documented limit)", async () => {
    const rt = runtime({ containment: 'session' });
    expect(rt.containment).toBe('session');
    const h = rt.spawn(spec(['sh', '-c', ESCAPE], { graceMs: 200 }));
    const escapee = await escapeeOf(h);
    await h.done;
    await h.terminate();
    expect(isAlive(escapee)).toBe(true);
  });

  it('dispose() ends escapees and removes every cgroup the runtime made', async () => {
    const rt = runtime();
    const h = rt.spawn(spec(['sh', '-c', ESCAPE], { graceMs: 100 }));
    const escapee = await escapeeOf(h);
    await h.done;
    await rt.dispose();
    expect(isAlive(escapee)).toBe(false);
    const home = ownCgroupDir() as string;
    expect(readdirSync(home).filter((n) => n.startsWith(`dsh-${process.pid}-`))).toEqual([]);
    expect(existsSync(home)).toBe(true);
  });

  it('rejects an unknown containment option', () => {
    expect(() => runtime({ containment: 'vm' as 'auto' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
