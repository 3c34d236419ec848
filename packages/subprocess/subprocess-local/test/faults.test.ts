/**
 * Faults at the substrate: each ends in a typed error or a documented, lossless behaviour, never
 * a crash or a hang. (Faults of terminals, worlds and compositions are tested in @dsh/dsh.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, runtime, spec, tempDir, waitFor } from './helpers.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const strays: number[] = [];
const mounts: string[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) if (pid > 1 && isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of mounts.splice(0)) spawnSync('umount', [dir]);
});

/** The cgroup v2 directory a process lives in. */
function cgroupOf(pid: number): string {
  const rel = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::'))
    ?.slice(3) as string;
  const mount = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => l.includes(' - cgroup2 '))
    ?.split(' ')[4] as string;
  return join(mount, rel);
}

describe('faults at the substrate', () => {
  it('fd exhaustion at spawn is RESOURCE_EXHAUSTED, and the next spawn works', () => {
    const out = execFileSync(
      'sh',
      ['-c', `ulimit -n 128; exec "${process.execPath}" "${fixture('emfile-spawn.mjs')}"`],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual({ starved: 'RESOURCE_EXHAUSTED', after: 0, text: 'ok\n' });
  });

  it('a full disk under the spill file: the copy is reported failed, the tail is still right', async () => {
    const dir = tempDir('dsh-tinyfs-');
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    expect(mounted.status).toBe(0); // tests run as root (CI does): a missing mount is a failure
    mounts.push(dir);
    const h = runtime().spawn(
      spec(['sh', '-c', "head -c 1000000 /dev/zero | tr '\\0' a; echo END"], {
        stdout: { kind: 'collect', maxBytes: 4096, spill: { dir, maxBytes: 10_000_000 } },
      }),
    );
    const outcome = await h.done;
    expect(outcome.exitCode).toBe(0);
    const reader = h.stdoutReader;
    expect(reader?.spillError).toMatch(/ENOSPC/);
    expect(reader?.read(0).spillPath).toBeNull();
    expect(reader?.totalBytes).toBe(1_000_004);
    expect(reader?.read(0).text.endsWith('aaaaEND\n')).toBe(true);
  });

  it('a tree whose cgroup was removed under it is still ended (session tracking takes over)', async () => {
    const rt = runtime();
    const h = rt.spawn(spec(['sh', '-c', 'setsid sleep 61 & echo $!; exec sleep 62'], { graceMs: 200 }));
    const escapee = await waitFor(() => Number(h.stdoutReader?.read(0).text.trim()) || 0);
    strays.push(escapee, h.pid as number);
    await waitFor(() => isAlive(escapee) && cgroupOf(escapee) === cgroupOf(h.pid as number));
    const group = cgroupOf(escapee);
    const parent = join(group, '..');
    for (const pid of readFileSync(join(group, 'cgroup.procs'), 'utf8').trim().split('\n')) {
      writeFileSync(join(parent, 'cgroup.procs'), pid); // moved out by someone else
    }
    rmdirSync(group);
    await h.terminate();
    expect(isAlive(escapee)).toBe(false);
    expect(isAlive(h.pid as number)).toBe(false);
  });

  it('a child that closes stdout but keeps running is waited for; its later stderr is kept', async () => {
    const h = runtime().spawn(spec(['sh', '-c', 'echo early; exec 1>&-; sleep 0.3; echo late >&2; exit 4']));
    const outcome = await h.done;
    expect(outcome.exitCode).toBe(4);
    expect(h.stdoutReader?.read(0).text).toBe('early\n');
    expect(h.stderrReader?.read(0).text).toBe('late\n');
  });

  it('a child that floods stderr only stays within its caps, memory and disk', async () => {
    const dir = tempDir('dsh-flood-');
    mkdirSync(join(dir, 'spill'));
    const h = runtime().spawn(
      spec(['sh', '-c', "head -c 20000000 /dev/zero | tr '\\0' e >&2"], {
        stderr: { kind: 'collect', maxBytes: 65_536, spill: { dir: join(dir, 'spill'), maxBytes: 1_000_000 } },
      }),
    );
    const outcome = await h.done;
    expect(outcome.exitCode).toBe(0);
    expect(h.stdoutReader?.read(0).text).toBe('');
    const read = h.stderrReader?.read(0);
    expect(h.stderrReader?.totalBytes).toBe(20_000_000);
    expect(read?.lossy).toBe(true);
    expect(read?.text.length).toBeLessThanOrEqual(65_536);
    expect(read?.text).toMatch(/^e+$/);
    expect(read?.spillPath).toBeNull(); // over its cap: discarded, never offered incomplete
    expect(h.stderrReader?.spillError).toBeNull();
  });
});
