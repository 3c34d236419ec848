/**
 * The emulator behind a session, fed directly: what it answers, what it keeps, how positions
 * and keys behave. Real `@xterm/headless`, no PTY.
 */
import { keyBytes, loadXterm, type Mark, Screen, sendPayload } from '@dsh/terminal-bash';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from './helpers.js';

const screens: Screen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

async function screen(transcriptChars = 1_000_000, cols = 40, rows = 10) {
  const xterm = await loadXterm();
  const replies: string[] = [];
  const markers: { payload: string; at: Mark }[] = [];
  let parsed = 0;
  const s = new Screen(xterm, cols, rows, transcriptChars, {
    reply: (d) => replies.push(d),
    marker: (payload, at) => markers.push({ payload, at }),
    accept: () => undefined,
    ready: () => undefined,
    parsed: () => {
      parsed += 1;
    },
  });
  screens.push(s);
  const feed = async (text: string) => {
    const before = parsed;
    s.feed(text);
    await waitFor(() => parsed > before && !s.busy, 'the emulator to parse');
  };
  return { s, replies, markers, feed };
}

describe('the emulator', () => {
  it('answers cursor position, device attributes and colour queries, so programs never wait on them', async () => {
    const { replies, feed } = await screen();
    await feed('ab\x1b[6n');
    expect(replies.join('')).toContain('\x1b[1;3R');
    replies.length = 0;
    await feed('\x1b[c');
    const da = replies.join('');
    expect(da.startsWith('\x1b[?')).toBe(true);
    expect(da.slice(3)).toMatch(/^[\d;]+c$/);
    replies.length = 0;
    await feed('\x1b]10;?\x1b\\\x1b]11;?\x07\x1b]4;1;?;200;?\x1b\\');
    expect(replies).toEqual([
      '\x1b]10;rgb:c0c0/c0c0/c0c0\x1b\\',
      '\x1b]11;rgb:0000/0000/0000\x1b\\',
      '\x1b]4;1;rgb:cdcd/0000/0000\x1b\\',
      '\x1b]4;200;rgb:ffff/0000/d7d7\x1b\\',
    ]);
  });

  it('applies carriage returns, erases and wraps: the text is what the screen showed', async () => {
    const { s, feed } = await screen();
    await feed('10%\r20%\r100%\r\nkept\x1b[2Kgone\r\n');
    await feed(`${'x'.repeat(50)}\r\n`); // wider than the 40 columns: one line, wrapped
    expect(s.page(0, 1_000).text).toBe(`100%\n    gone\n${'x'.repeat(50)}\n`);
  });

  it('rows that scroll off become a bounded transcript; marks keep exact offsets across trimming', async () => {
    const { s, feed } = await screen(5_000);
    const at = s.mark();
    const lines = Array.from({ length: 3_000 }, (_, i) => `line ${i}`);
    await feed(`${lines.join('\r\n')}\r\n`);
    const total = lines.join('\n').length + 1;
    const { text, lost } = s.text(at, s.end);
    expect(text.length + lost).toBe(total);
    expect(text.endsWith('line 2999\n')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(5_000 + 40 * 10);
  });

  it('a full-screen program is a snapshot of rows, blanks trimmed; leaving it restores the text view', async () => {
    const { s, feed } = await screen();
    await feed('before\r\n\x1b[?1049h\x1b[2J\x1b[H  title   \x1b[3;1Hrow three      ');
    expect(s.alternate).toBe(true);
    expect(s.snapshot()).toMatchObject({ text: '  title\n\nrow three', rows: 10, cols: 40, alternate: true });
    await feed('\x1b[?1049l');
    expect(s.alternate).toBe(false);
    expect(s.page(0, 100).text).toBe('before\n');
  });

  it('prompt markers are reported where the cursor is, even mid-parse after heavy output', async () => {
    const { s, markers, feed } = await screen(1_000_000);
    const start = s.mark();
    const body = Array.from({ length: 5_000 }, (_, i) => `${i}`).join('\r\n');
    await feed(`${body}\r\n\x1b]133;D;0;nonce;1\x07$ `);
    expect(markers).toHaveLength(1);
    const marker = markers[0] as { at: Mark };
    const out = s.text(start, marker.at);
    expect(out.lost).toBe(0);
    expect(out.text).toBe(`${body.replace(/\r\n/g, '\n')}\n`);
  });

  it('keys follow the cursor-key mode; sends type keys instead of Enter', async () => {
    const { s, feed } = await screen();
    expect(keyBytes('Up', s.applicationCursor)).toBe('\x1b[A');
    await feed('\x1b[?1h'); // DECCKM on, as vim and less ask
    expect(s.applicationCursor).toBe(true);
    expect(keyBytes('Up', s.applicationCursor)).toBe('\x1bOA');
    expect(keyBytes('Home', true)).toBe('\x1bOH');
    expect(keyBytes('C-c', false)).toBe('\x03');
    expect(keyBytes('q', false)).toBe('q');
    const typed = (input: { text: string; submit: boolean; keys: string[] }, toShell = false) =>
      sendPayload(input, { toShell, applicationCursor: false }).payload;
    expect(typed({ text: 'ihello', submit: false, keys: [] })).toBe('ihello');
    expect(typed({ text: ':wq', submit: true, keys: [] })).toBe(':wq\r');
    expect(typed({ text: '', submit: true, keys: ['q'] })).toBe('q'); // no Enter after the keys
    expect(typed({ text: 'ls', submit: true, keys: [] }, true)).toBe('\x1b[200~ls\x1b[201~\r');
  });
});
