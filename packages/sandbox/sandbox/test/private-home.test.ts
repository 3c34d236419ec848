/**
 * How a private home is seeded (private-home.ts): small files copied, links made again, the rest
 * bound read-only, state parents placed entry by entry, hidden paths left out, sizes bounded.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  makePrivateHome,
  PRIVATE_HOME_COPY_MAX_BYTES,
  PRIVATE_HOME_MAX_ENTRIES,
  removePrivateHome,
} from '@dsh/sandbox';
import { afterEach, describe, expect, it } from 'vitest';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixture(): { home: string; root: string } {
  const base = mkdtempSync('/var/tmp/dsh-ph-unit-');
  made.push(base);
  const home = join(base, 'home');
  mkdirSync(join(home, '.config', 'tool'), { recursive: true });
  mkdirSync(join(home, 'projects'));
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.viminfo'), 'state\n');
  writeFileSync(join(home, 'big.bin'), Buffer.alloc(PRIVATE_HOME_COPY_MAX_BYTES + 1));
  writeFileSync(join(home, '.config', 'tool.conf'), 'conf\n');
  writeFileSync(join(home, '.ssh', 'id'), 'key\n');
  symlinkSync('projects', join(home, 'latest'));
  return { home, root: join(base, 'homes') };
}

describe('a private home', () => {
  it('copies small files, makes links again, binds the rest read-only, and leaves hidden paths out', () => {
    const { home, root } = fixture();
    const ph = makePrivateHome(home, root, [], (p) => p === join(home, '.ssh'));
    expect(ph).not.toBeNull();
    if (!ph) return;
    expect(ph.args.slice(0, 3)).toEqual(['--bind', ph.dir, home]);
    // The person's typed history is not copied in: each world starts an empty one of its own.
    expect(readFileSync(join(ph.dir, '.viminfo'), 'utf8')).toBe('');
    expect(readFileSync(join(ph.dir, '.config', 'tool.conf'), 'utf8')).toBe('conf\n');
    expect(lstatSync(join(ph.dir, 'latest')).isSymbolicLink()).toBe(true);
    const binds = ph.args.slice(3);
    expect(binds).toEqual(expect.arrayContaining(['--ro-bind', join(home, 'big.bin'), join(home, 'projects')]));
    expect(binds).toContain(join(home, '.config', 'tool')); // a state parent's entry, one level down
    expect(binds.join(' ')).not.toContain('.ssh');
    expect(existsSync(join(ph.dir, '.ssh'))).toBe(false);
    removePrivateHome(ph);
    expect(existsSync(ph.dir)).toBe(false);
  });

  it('none where the home is writable already or too large to place; a large state parent is bound whole', () => {
    const { home, root } = fixture();
    expect(makePrivateHome(home, root, [home], () => false)).toBeNull();
    expect(makePrivateHome('/', root, [], () => false)).toBeNull();
    for (let i = 0; i <= PRIVATE_HOME_MAX_ENTRIES; i++) writeFileSync(join(home, '.config', `f${i}`), '');
    const ph = makePrivateHome(home, root, [], () => false);
    expect(ph?.args).toEqual(expect.arrayContaining(['--ro-bind', join(home, '.config'), join(home, '.config')]));
    removePrivateHome(ph ?? null);
    for (let i = 0; i <= PRIVATE_HOME_MAX_ENTRIES; i++) writeFileSync(join(home, `g${i}`), '');
    expect(makePrivateHome(home, root, [], () => false)).toBeNull();
  });
});
