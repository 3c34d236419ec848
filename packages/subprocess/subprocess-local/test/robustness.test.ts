import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownCgroupDir } from '@dsh/subprocess-local';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, runtime, spec, tracker, waitFor } from './helpers.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe('unknown is never gone', () => {
  it('fd exhaustion during terminate() does not leave the tree alive or marked gone', () => {
    const out = execFileSync('sh', ['-c', `ulimit -n 256; exec "${process.execPath}" "${fixture('emfile.mjs')}"`], {
      encoding: 'utf8',
    });
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { containment: 'cgroup', alive: false },
      { containment: 'session', alive: false },
    ]);
  });
});

describe('cgroup subtrees', () => {
  // By default a child starts in the host's nursery and is moved into its cgroup as the spawn
  // returns: a program that acts on its own cgroup waits for that move (as the sandbox shim
  // does). In strict mode it is born inside and may look at once.
  it.each([
    ['auto', 'while [ "$(basename "$CG")" = host ]; do sleep 0.005; CG=$(sed -n "s/^0:://p" /proc/self/cgroup); done;'],
    ['strict', ''],
  ] as const)(
    '%s: a member that moved into a sub-cgroup still counts, is ended, and leaves no cgroup',
    async (containment, wait) => {
      const rt = runtime({ containment });
      const script =
        `CG=$(sed -n "s/^0:://p" /proc/self/cgroup); ${wait} MNT=$(awk '$9=="cgroup2"{print $5; exit}' /proc/self/mountinfo);` +
        ' (setsid sh -c \'mkdir -p "$0/sub" && echo $$ > "$0/sub/cgroup.procs" && echo $$ && exec sleep 60\' "$MNT$CG" &);' +
        ' sleep 0.3';
      const h = rt.spawn(spec(['sh', '-c', script], { graceMs: 100 }));
      await h.done;
      const pid = Number(h.stdoutReader?.read(0).text.trim());
      strays.push(pid);
      expect(isAlive(pid)).toBe(true);
      const wait2 = tracker(h.waitForExit());
      await new Promise((r) => setTimeout(r, 200));
      expect(wait2.settled).toBe(false);
      await h.terminate();
      expect(isAlive(pid)).toBe(false);
      await rt.dispose();
      const home = ownCgroupDir() as string;
      expect(readdirSync(home).filter((n) => n.startsWith(`dsh-${process.pid}-`))).toEqual([]);
    },
  );

  it('removes empty cgroups left behind by a dsh host that died', () => {
    const home = ownCgroupDir() as string;
    const deadPid = 2 ** 22 + 12345; // above pid_max: no such process
    const stale = join(home, `dsh-${deadPid}-deadbeef`);
    mkdirSync(join(stale, 't1'), { recursive: true });
    try {
      runtime();
      expect(readdirSync(home)).not.toContain(`dsh-${deadPid}-deadbeef`);
    } finally {
      for (const dir of [join(stale, 't1'), stale]) {
        try {
          rmdirSync(dir);
        } catch {
          // already swept
        }
      }
    }
  });

  it('containment is used on the main thread only: worker threads fall back to session tracking', () => {
    const out = execFileSync(process.execPath, [fixture('worker-containment.mjs')], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ main: 'cgroup', worker: 'session' });
  });
});

describe('abort and waiting after the direct child exited', () => {
  it('aborting the spec signal after exit still ends the rest of the tree', async () => {
    const ac = new AbortController();
    const h = runtime().spawn(spec(['sh', '-c', 'sleep 60 & echo $!'], { signal: ac.signal, graceMs: 100 }));
    await h.done;
    const pid = Number(h.stdoutReader?.read(0).text.trim());
    strays.push(pid);
    expect(isAlive(pid)).toBe(true);
    ac.abort();
    await waitFor(() => !isAlive(pid), 'grandchild ended by abort');
    await h.waitForExit();
  });

  it('an aborted waitForExit stops polling, so an idle host can exit', () => {
    const out = execFileSync(process.execPath, [fixture('abandoned-wait.mjs')], { encoding: 'utf8', timeout: 20_000 });
    const [pid, code] = out.trim().split('\n');
    strays.push(Number(pid));
    expect(code).toBe('ABORTED');
  });

  it('flags a stream cut off after the post-exit drain, and only then', async () => {
    const rt = runtime();
    const cut = rt.spawn(spec(['sh', '-c', 'sleep 60 & echo hi'], { graceMs: 100 }));
    await cut.done;
    expect(cut.stdoutReader?.cutOff).toBe(true);
    expect(cut.stdoutReader?.read(0).text).toBe('hi\n');
    const whole = rt.spawn(spec(['sh', '-c', 'echo hi']));
    await whole.done;
    expect(whole.stdoutReader?.cutOff).toBe(false);
  });
});
