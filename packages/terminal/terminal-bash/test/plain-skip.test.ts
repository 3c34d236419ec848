/**
 * Plain floods skip the emulator's rows (plain-skip.ts): whatever the output and however it is
 * cut into reads, a screen that skips keeps exactly what a screen that parses every row keeps —
 * the transcript, the screen, a watcher's scrollback and the offsets of marks taken between reads,
 * also once the screen is made taller.
 * Real `@xterm/headless`, no PTY.
 */
import { loadXterm, Screen } from '@dsh/terminal-bash';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { cutPlain, isPlain, skippedRows } from '../src/plain-skip.js';
import { WATCH_SNAPSHOT_SCROLLBACK_ROWS } from '../src/screen.js';
import { loadSerialize } from '../src/xterm-loader.js';
import { waitFor } from './helpers.js';

const screens: Screen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

async function pair(cols: number, rows: number, transcriptChars: number) {
  const xterm = await loadXterm();
  const make = (skipPlain: boolean) => {
    const s = new Screen(
      xterm,
      cols,
      rows,
      transcriptChars,
      {
        reply: () => undefined,
        marker: () => undefined,
        accept: () => undefined,
        ready: () => undefined,
        parsed: () => undefined,
      },
      { skipPlain },
    );
    screens.push(s);
    return s;
  };
  return { fast: make(true), slow: make(false) };
}

/** `count` plain lines of at most `width` characters, from a seed: digits, words, blanks at the end, empty lines. */
function plainLines(count: number, width: number, seed: number): string {
  let x = seed | 1;
  const next = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = next(width + 1);
    let line = '';
    for (let c = 0; c < length; c++) line += next(6) === 0 ? ' ' : String.fromCharCode(0x21 + next(94));
    lines.push(line);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** `seq`-like lines, one in `blankEvery` ending in a blank (the common flood, where no row needs trimming but that one). */
function numberLines(count: number, blankEvery: number): string {
  const lines = Array.from({ length: count }, (_, i) => `${i + 1}${i % blankEvery === blankEvery - 1 ? ' ' : ''}`);
  return `${lines.join('\r\n')}\r\n`;
}

/** Output a flood could hold: plain lines, wide and blank-ended ones, and now and then colour, a lone CR or a cursor move. */
const outputs = fc.array(
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.tuple(fc.integer({ min: 1, max: 3_000 }), fc.integer()).map(([n, seed]) => plainLines(n, 12, seed)),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 1_000 }), fc.integer())
        .map(([n, seed]) => plainLines(n, 200, seed)),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 4_000 }), fc.integer({ min: 1, max: 6_000 }))
        .map(([n, every]) => numberLines(n, every)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '\x1b[31mred\x1b[0m\r\n',
        'ab\rcd\r\n',
        '\x1b[2A',
        'x\ny\r\n',
        '\t|\r\n',
        'tail-no-eol',
      ),
    },
  ),
  { minLength: 1, maxLength: 12 },
);

/** Resolves once both screens parsed all they were fed (polled each millisecond: the property runs many times). */
async function parsed(...all: Screen[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (all.some((s) => s.busy)) {
    if (Date.now() > deadline) throw new Error('the screens did not parse what they were fed within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('plain floods skip the emulator, keeping what it would have kept', () => {
  it('the plain rule: printable ASCII lines ended by CR LF, a CR LF split across reads included', () => {
    expect(isPlain('12\r\n34\r\n')).toBe(true);
    expect(isPlain('12\r\n3\r')).toBe(true);
    expect(isPlain('\n4\r\n', '3\r')).toBe(true);
    expect(isPlain('\n4\r\n', '3')).toBe(false);
    expect(isPlain('4\r\n', '3\r')).toBe(false);
    expect(isPlain('a\rb\r\n')).toBe(false);
    expect(isPlain('a\nb')).toBe(false);
    expect(isPlain('\x1b[31ma\r\n')).toBe(false);
    expect(isPlain('é\r\n')).toBe(false);
    expect(cutPlain('a\r\nb\r\nc\r\nd', 1, 1)).toEqual({ head: 'a\r\n', skipped: 'b', tail: 'c\r\nd' });
    expect(cutPlain('a\r\nb\r\nc\r\nd\r\n', 2, 1)).toEqual({ head: 'a\r\nb\r\n', skipped: 'c', tail: 'd\r\n' });
    expect(cutPlain('a\r\nb\r\nc\r\n', 1, 2)).toBeNull();
    expect(cutPlain('a\r\nb\r\nc\r\n', 3, 0)).toBeNull();
    expect(skippedRows('ab \r\n\r\n0123456789abc', 10, true)).toEqual({ text: '\nab\n\n0123456789abc', rows: 4 });
    expect(skippedRows('ab\r\ncd', 10, false)).toEqual({ text: 'ab\ncd', rows: 2 });
    expect(skippedRows('ab\r\ncd ', 10, false)).toEqual({ text: 'ab\ncd', rows: 2 });
    expect(skippedRows('0123456789a ', 10, false)).toEqual({ text: '0123456789a', rows: 2 });
  });

  it('a skipping screen and a parsing screen agree on text, screen, scrollback and marks', async () => {
    const serialize = await loadSerialize();
    let skipped = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        outputs,
        fc.integer({ min: 1, max: 30_000 }),
        fc.constantFrom(8, 20, 80),
        fc.constantFrom(3, 24),
        fc.constantFrom(2_000, 1_000_000),
        fc.constantFrom(0, 0, 2, 40, 501, 900),
        async (chunks, readSize, cols, rows, transcriptChars, taller) => {
          const { fast, slow } = await pair(cols, rows, transcriptChars);
          const all = chunks.join('');
          const marks: { fast: ReturnType<Screen['mark']>; slow: ReturnType<Screen['mark']> }[] = [];
          for (let at = 0, n = 0; at < all.length; at += readSize, n++) {
            const read = all.slice(at, at + readSize);
            fast.feed(read);
            slow.feed(read);
            if (n % 5 === 4 && marks.length < 40) {
              await parsed(fast, slow);
              marks.push({ fast: fast.mark(), slow: slow.mark() });
            }
          }
          await parsed(fast, slow);
          // A screen made taller pulls rows back from the emulator's scrollback. The skipping screen
          // keeps a watcher's scrollback of the flood there, the parsing one more: once taller, the
          // first may show fewer rows (blank rows below the cursor, a shorter watcher scrollback),
          // never a row from before the skipped ones (the rows it shows end the other's).
          if (taller > 0) for (const s of [fast, slow]) s.resize(cols, rows + taller);
          expect(fast.end).toBe(slow.end);
          expect(fast.text(0, fast.end)).toEqual(slow.text(0, slow.end));
          expect(fast.page(undefined, 5_000)).toEqual(slow.page(undefined, 5_000));
          for (const m of marks) expect(fast.offset(m.fast)).toBe(slow.offset(m.slow));
          const [fastShot, slowShot] = [await fast.serializeParsed(serialize), await slow.serializeParsed(serialize)];
          if (taller === 0) {
            expect(fast.snapshot()).toEqual(slow.snapshot());
            expect(fast.cursor()).toEqual(slow.cursor());
            expect(fastShot).toBe(slowShot);
          } else {
            const shown = (v: Screen): string[] => v.snapshot().text.replace(/\n+$/, '').split('\n');
            const [f, w] = [shown(fast), shown(slow)];
            // At least a watcher's scrollback and the screen above the cursor's (empty) row.
            expect(f.length).toBeGreaterThanOrEqual(Math.min(w.length, rows - 1 + WATCH_SNAPSHOT_SCROLLBACK_ROWS));
            expect(f).toEqual(w.slice(w.length - f.length));
            // While rows stay above the screen, they end the other's too (past that the screen says it all).
            if (taller < WATCH_SNAPSHOT_SCROLLBACK_ROWS) expect(slowShot.endsWith(fastShot)).toBe(true);
          }
          skipped += fast.skipped > 0 ? 1 : 0;
          runs += 1;
          for (const s of screens.splice(0)) s.dispose();
        },
      ),
      { numRuns: 60 },
    );
    // The property says something only where rows were skipped: most runs must have skipped some.
    expect(skipped).toBeGreaterThan(runs / 3);
  }, 120_000);

  it('a flood of a million rows skips almost all of them and keeps the transcript exact', async () => {
    const { fast } = await pair(120, 40, 2_000_000);
    const lines = Array.from({ length: 200_000 }, (_, i) => String(i + 1));
    const flood = `${lines.join('\r\n')}\r\n`;
    for (let at = 0; at < flood.length; at += 4095) fast.feed(flood.slice(at, at + 4095));
    await waitFor(() => !fast.busy, 'the screen to parse');
    expect(fast.text(0, fast.end)).toEqual({ text: `${lines.join('\n')}\n`, lost: 0 });
    expect(fast.skipped).toBeGreaterThan(190_000);
  });
});
