/**
 * The transcript's bound (scrollback.ts): it keeps the last characters from a line's start, counts
 * every character, and slices exactly what it kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Scrollback } from '../src/scrollback.js';

describe('the transcript keeps whole lines within its bound', () => {
  it('its oldest kept offset is a line start (or the cut, when one line fills the bound), and its text is exact', () => {
    const chunk = fc.stringMatching(/^[a-z\n]{0,40}$/);
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 60 }), fc.integer({ min: 1, max: 64 }), (chunks, max) => {
        const s = new Scrollback(max);
        let full = '';
        for (const c of chunks) {
          s.append(c);
          full += c;
          const cut = Math.max(0, full.length - max);
          expect(s.end).toBe(full.length);
          expect(s.start).toBeGreaterThanOrEqual(cut);
          const lineStart = s.start === 0 || full[s.start - 1] === '\n';
          const noLineEnd = !full.slice(cut, -1).includes('\n');
          expect(lineStart || (s.start === cut && noLineEnd), JSON.stringify({ full, max, start: s.start })).toBe(true);
          if (s.start > cut) expect(full.slice(cut, s.start - 1)).not.toContain('\n'); // the first line start after the cut
          expect(s.slice(0)).toEqual({ text: full.slice(s.start), lost: s.start });
        }
      }),
      { numRuns: 300 },
    );
  });
});
