import { readdirSync, readFileSync } from 'node:fs';
import { ownCgroupDir } from '@dsh/subprocess-local';
import { describe, expect, it } from 'vitest';
import { runtime, spec, tempDir } from './helpers.js';

/** Runs in the soak (DESIGN §11: no fd, zombie or spill-file leak over 10 000 runs). */
const RUNS = 10_000;
/** Runs in flight at once, so the soak also exercises concurrency. */
const CONCURRENCY = 8;
/** The soak takes ~15 s on an idle 2-core machine; a loaded CI machine gets room, not a timing claim. */
const SOAK_TIMEOUT_MS = 300_000;

const openFds = (): number => readdirSync('/proc/self/fd').length;

function zombieChildren(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' && Number(fields[1]) === process.pid) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

describe('soak', () => {
  it(
    `${RUNS} runs leave no fd, zombie, spill file, tracked handle or cgroup behind`,
    async () => {
      const rt = runtime();
      const spillDir = tempDir();
      const fdsBefore = openFds();
      const kinds = [
        () => spec(['true']),
        () => spec(['sh', '-c', 'echo out; echo err >&2; exit 3']),
        () =>
          spec(['head', '-c', '5000', '/dev/zero'], {
            stdout: { kind: 'collect', maxBytes: 100, spill: { dir: spillDir, maxBytes: 1000 } },
          }),
        () => spec(['dsh-no-such-program-xyz']),
        () => spec(['cat'], { stdin: { kind: 'bytes', data: 'abc' } }),
      ];
      let next = 0;
      let failures = 0;
      const worker = async (): Promise<void> => {
        while (next < RUNS) {
          const i = next++;
          const make = kinds[i % kinds.length] as () => ReturnType<typeof spec>;
          const h = rt.spawn(make());
          const outcome = await h.done;
          const expectedError = i % kinds.length === 3;
          if ((outcome.error !== null) !== expectedError) failures++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      expect(failures).toBe(0);
      expect(readdirSync(spillDir)).toEqual([]);
      expect(zombieChildren()).toEqual([]);
      expect(rt.trackedCount).toBeLessThan(64 + CONCURRENCY);
      expect(openFds()).toBeLessThanOrEqual(fdsBefore + 2); // slack for the test runner's own descriptors
      await rt.dispose();
      expect(openFds()).toBeLessThanOrEqual(fdsBefore);
      const home = ownCgroupDir() as string;
      expect(readdirSync(home).filter((n) => n.startsWith(`dsh-${process.pid}-`))).toEqual([]);
    },
    SOAK_TIMEOUT_MS,
  );
});
