/** Which lines for the shell's prompt leave a construct open, so they go unwrapped (open-lines.ts). */
import { describe, expect, it } from 'vitest';
import { leavesOpen } from '../src/open-lines.js';

describe('lines that leave something open', () => {
  it('an open brace, quote, bracket, compound command, here-document or continuation', () => {
    expect(leavesOpen('g() {\n echo x')).toBe(true);
    expect(leavesOpen('echo "a\nb')).toBe(true);
    expect(leavesOpen("echo 'a\nb")).toBe(true);
    expect(leavesOpen('(cd x\n ls')).toBe(true);
    expect(leavesOpen('if true; then\n echo y')).toBe(true);
    expect(leavesOpen('for i in 1 2; do\n echo $i')).toBe(true);
    expect(leavesOpen('case $x in\n a) echo a;;')).toBe(true);
    expect(leavesOpen('cat <<EOF\nhello')).toBe(true);
    expect(leavesOpen('echo a \\\nb \\')).toBe(true);
  });

  it('complete lines, quotes and comments included', () => {
    expect(leavesOpen('echo a\necho b')).toBe(false);
    expect(leavesOpen('g() {\n echo x\n}\ng')).toBe(false);
    expect(leavesOpen('if true; then\n echo y\nfi')).toBe(false);
    expect(leavesOpen('for i in 1 2; do echo $i; done\necho "{ not a brace"')).toBe(false);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    expect(leavesOpen('echo \'(\' ; echo "do"\n# if this were code {\necho ${HOME}')).toBe(false);
    expect(leavesOpen('cat <<< word\necho {a,b}')).toBe(false);
  });
});
