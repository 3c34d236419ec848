/** Whose exit code a prompt marker carries when a program held the terminal (program-line.ts). */
import { describe, expect, it } from 'vitest';
import { endsWithProgram } from '../src/program-line.js';

describe('a program is its command line’s last command', () => {
  it('alone, after other commands, with its path, assignments or exec before it', () => {
    expect(endsWithProgram('python3', 'python3')).toBe(true);
    expect(endsWithProgram('cd x && vim notes.txt', 'vim notes.txt')).toBe(true);
    expect(endsWithProgram('LANG=C /usr/bin/vim a', 'vim a')).toBe(true);
    expect(endsWithProgram('exec nano', '/usr/bin/nano')).toBe(true);
    expect(endsWithProgram('seq 3 | less', 'less')).toBe(true);
  });

  it('not when a command follows it, or the line ran it through another program, or is not known', () => {
    expect(endsWithProgram('python3; echo after=$?', 'python3')).toBe(false);
    expect(endsWithProgram("whiptail --yesno 'a; b' 8 40; echo rc=$?", 'whiptail --yesno a; b 8 40')).toBe(false);
    expect(endsWithProgram('python3 | tee log', 'python3')).toBe(false);
    expect(endsWithProgram('git commit', 'vim .git/COMMIT_EDITMSG')).toBe(false);
    expect(endsWithProgram(null, 'vim')).toBe(false);
  });

  it('quotes and escapes hide separators', () => {
    expect(endsWithProgram("echo 'a; b' && python3", 'python3')).toBe(true);
    expect(endsWithProgram('echo a\\; python3', 'python3')).toBe(false); // one command: echo
  });
});
