import { parseMarker, rcText, Sanitizer, Scrollback, sanitize } from '@dsh/terminal-bash';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** True for C0/C1 control characters and DEL. */
const isControl = (ch: string): boolean => {
  const c = ch.codePointAt(0) as number;
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
};
const withoutControls = (s: string): string => [...s].filter((ch) => !isControl(ch)).join('');

/** Terminal output pieces: plain text and every kind of control sequence. */
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 8 }).map(withoutControls),
  fc.constantFrom(
    '\x1b[31m',
    '\x1b[0m',
    '\x1b[?2004h',
    '\x1b[?2004l',
    '\x1b[200~',
    '\x1b[201~',
    '\x1b[2J\x1b[H',
    '\x1b]0;title\x07',
    '\x1b]133;D;0;nonce;1\x1b\\',
    '\x1bP1$r0m\x1b\\',
    '\x1b(B',
    '\x1b=',
    '\x1b7',
    '\r\n',
    '\n',
    '\t',
    '\x07',
    '\b',
  ),
);

describe('Sanitizer', () => {
  it('strips CSI, OSC, DCS, bracketed paste and other escapes, keeping text intact', () => {
    expect(sanitize('\x1b[?2004h$ \x1b[1;32mgreen\x1b[0m and \x1b]0;t\x07plain\r\n\x1b[200~pasted\x1b[201~')).toBe(
      '$ green and plain\npasted',
    );
    expect(sanitize('tab\there\x07\bx\x1b(Bz')).toBe('tab\therexz');
    expect(sanitize('héllo wörld 🙂 中文')).toBe('héllo wörld 🙂 中文');
  });

  it('property: chunking never changes the result, and plain text passes through unchanged', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), (pieces, cuts) => {
        const whole = pieces.join('');
        const chars = [...whole];
        const points = [...new Set(cuts.map((c) => c % (chars.length + 1)))].sort((a, b) => a - b);
        const s = new Sanitizer();
        let out = '';
        let last = 0;
        for (const p of [...points, chars.length]) {
          out += s.push(chars.slice(last, p).join(''));
          last = p;
        }
        out += s.push('');
        const expected = new Sanitizer().push(whole);
        expect(out).toBe(expected);
        expect([...out].filter((ch) => isControl(ch) && ch !== '\n' && ch !== '\t')).toEqual([]); // only \n and \t remain
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const plain = withoutControls(text);
        expect(sanitize(plain)).toBe(plain);
      }),
    );
  });

  it('reports OSC payloads with the sanitized offset, across chunks', () => {
    const seen: [string, number][] = [];
    const s = new Sanitizer((payload, offset) => seen.push([payload, offset]));
    expect(s.push('ab\x1b]133;D;0;n')).toBe('ab');
    expect(s.push('once;7\x07cd')).toBe('cd');
    expect(seen).toEqual([['133;D;0;nonce;7', 2]]);
    expect(s.offset).toBe(4);
  });

  it('lone carriage returns end a line instead of overwriting text', () => {
    expect(sanitize('10%\r50%\r100%\n')).toBe('10%\n50%\n100%\n');
  });
});

describe('prompt markers', () => {
  it('accept only this session nonce and a well-formed payload', () => {
    expect(parseMarker('133;D;2;abc;5', 'abc')).toEqual({ exitCode: 2, seq: 5, shellPid: null });
    expect(parseMarker('133;D;0;abc;6;4242', 'abc')).toEqual({ exitCode: 0, seq: 6, shellPid: 4242 });
    expect(parseMarker('133;D;2;forged;5', 'abc')).toBeNull();
    expect(parseMarker('133;D;2;abc', 'abc')).toBeNull();
    expect(parseMarker('133;A;2;abc;5', 'abc')).toBeNull();
  });

  it('the rc file never exports the nonce or the hook', () => {
    const rc = rcText('feedface');
    expect(rc).toContain("__dsh_nonce='feedface'");
    expect(rc).not.toMatch(/export|declare -x/);
  });
});

describe('Scrollback', () => {
  it('keeps a bounded tail with offsets since the start', () => {
    const sb = new Scrollback(10);
    sb.append('0123456789');
    sb.append('abcdefghij');
    expect(sb.end).toBe(20);
    expect(sb.page(undefined, 5)).toEqual({ text: 'fghij', offset: 15, nextOffset: 20, startOffset: 10 });
    expect(sb.page(0, 4)).toEqual({ text: 'abcd', offset: 10, nextOffset: 14, startOffset: 10 });
    expect(sb.page(18, 10)).toEqual({ text: 'ij', offset: 18, nextOffset: 20, startOffset: 10 });
    expect(sb.page(25, 10)).toEqual({ text: '', offset: 20, nextOffset: 20, startOffset: 10 });
  });
});
