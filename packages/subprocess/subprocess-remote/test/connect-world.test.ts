/**
 * connectWorld over local channels: a boot into an empty cache sends the payload, the next finds
 * it cached, a banner printed before the boot line is skipped, and a far side that says `ready`
 * and then nothing is WORLD_UNAVAILABLE within the boot timeout, its channel ended.
 */
import { appendFileSync, chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smallSpec } from '@dsh/subprocess';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support.js';
import { connectWorld } from '../src/index.js';

const via = new LocalSubprocessRuntime();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
afterAll(() => via.dispose());

describe('connectWorld', () => {
  it('sends the payload into an empty cache, then finds it cached; a banner before the boot line is skipped', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dsh-boot-home-'));
    dirs.push(home);
    // `sh -c 'echo banner; exec "$@"' x …`: a login banner, then the boot command as given.
    const channel = [
      'env',
      `HOME=${home}`,
      'XDG_CACHE_HOME=',
      `TMPDIR=${join(home, 'tmp')}`, // the last cache root too is the test's own
      'sh',
      '-c',
      'printf "Welcome!\\nno newline after this: "; exec "$@"',
      'channel',
    ];
    const first = await connectWorld(channel, via, { cwd: '/' });
    expect(first.boot).toBe('sent');
    expect(String(first.info.entry).startsWith(join(home, '.cache', 'dsh', 'runtime'))).toBe(true);
    await first.runtime.dispose();
    const second = await connectWorld(channel, via, { cwd: '/' });
    expect(second.boot).toBe('cached');
    const h = second.runtime.spawn(smallSpec(['echo', 'far'], { maxBytes: 1024, graceMs: 500 }));
    await h.done;
    expect(h.stdoutReader?.read(0).text).toBe('far\n');
    await second.runtime.dispose();
    // A cached copy that no longer matches its hash (changed by anyone) is replaced, not run.
    appendFileSync(String(second.info.entry), '\nprocess.exit(99);\n');
    const third = await connectWorld(channel, via, { cwd: '/' });
    expect(third.boot).toBe('sent');
    expect(readFileSync(String(third.info.entry), 'utf8')).not.toContain('process.exit(99)');
    await third.runtime.dispose();
    // A cache that is writable by others is not trusted at all.
    const root = join(home, '.cache', 'dsh');
    chmodSync(root, 0o777);
    const fourth = await connectWorld(channel, via, { cwd: '/' });
    expect(String(fourth.info.entry).startsWith(join(home, 'tmp', 'dsh-'))).toBe(true);
    await fourth.runtime.dispose();
  });

  it('a channel that joins its command into one shell string (as ssh does) boots when told so', async () => {
    const home = mkdtempSync(join(tmpdir(), 'dsh-boot-home-'));
    dirs.push(home);
    // Like ssh: takes the rest of its argv as ONE string and hands it to a shell.
    const joiner = [
      'env',
      `HOME=${home}`,
      'XDG_CACHE_HOME=',
      `TMPDIR=${join(home, 'tmp')}`,
      'sh',
      '-c',
      'exec sh -c "$1"',
      'joiner',
    ];
    const world = await connectWorld(joiner, via, { cwd: '/', joinsArgv: true });
    expect(world.boot).toBe('sent');
    await world.runtime.dispose();
  });

  it('a far side that says ready and then nothing is WORLD_UNAVAILABLE in time, its channel ended', async () => {
    const token = String(process.pid * 1000 + Math.floor(Math.random() * 1000));
    const silent = ['sh', '-c', `echo "DSH-BOOT 1 ready cached /nowhere"; exec sleep 3${token}`, 'silent'];
    await expect(connectWorld(silent, via, { cwd: '/', bootTimeoutMs: 500 })).rejects.toMatchObject({
      code: 'WORLD_UNAVAILABLE',
    });
    const alive = () =>
      readdirSync('/proc').some((n) => {
        try {
          return /^\d+$/.test(n) && readFileSync(`/proc/${n}/cmdline`, 'latin1') === `sleep\u00003${token}\u0000`;
        } catch {
          return false;
        }
      });
    await waitFor(() => !alive(), 'the channel process to be gone');
  });
});
