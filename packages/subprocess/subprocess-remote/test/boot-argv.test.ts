/**
 * The boot step appended to a channel argv: ssh joins its remote argv into one string for the
 * remote user's shell, so every word is quoted; docker and kubectl pass words as they are.
 */
import { spawnSync } from 'node:child_process';
import { shellQuote } from '@dsh/subprocess';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bootArgv, joinsArgv } from '../src/index.js';

/** What `sh -c STRING` sees as its argv, NUL-separated. */
function argvThroughShell(joined: string): string[] {
  const r = spawnSync('sh', ['-c', `set -- ${joined}; for a; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' });
  return r.stdout.split('\0').slice(0, -1);
}

/** Characters a shell treats specially, and some that it does not. */
const SHELL_CHARS = fc.constantFrom(...'\'"\\$`*?![]~#;&|<>(){} \t\n=-_./:@%+,aZ9é字'.split(''));

describe('boot argv', () => {
  it('a quoted word reaches a POSIX shell unchanged, whatever it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: SHELL_CHARS, minLength: 1 }), { maxLength: 6 }), (words) => {
        expect(argvThroughShell(words.map(shellQuote).join(' '))).toEqual(words);
      }),
      { numRuns: 200 },
    );
  });

  it('ssh gets one quoted word; docker exec and kubectl exec get the words as they are', () => {
    expect(joinsArgv(['ssh', '-T', 'h'])).toBe(true);
    expect(joinsArgv(['/usr/bin/ssh', 'h'])).toBe(true);
    expect(joinsArgv(['docker', 'exec', '-i', 'c'])).toBe(false);
    const ssh = bootArgv(['ssh', '-T', 'h'], 'abc', ['--containment', 'auto']);
    expect(ssh.slice(0, 3)).toEqual(['ssh', '-T', 'h']);
    expect(ssh).toHaveLength(4);
    const words = argvThroughShell(ssh[3] as string);
    const docker = bootArgv(['docker', 'exec', '-i', 'c'], 'abc', ['--containment', 'auto']);
    expect(docker.slice(4)).toEqual(words);
    expect(words.slice(0, 3)).toEqual(['sh', '-c', words[2]]);
    expect(words.slice(-3)).toEqual(['abc', '--containment', 'auto']);
  });
});
