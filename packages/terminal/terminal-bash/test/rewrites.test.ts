/**
 * Where a send's output starts when a program redrew rows above the cursor (rewrites.ts), fed
 * straight into the emulator. Real `@xterm/headless`, no PTY.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rewrittenFrom, shoot } from '../src/rewrites.js';
import { Screen } from '../src/screen.js';
import { loadXterm } from '../src/xterm-loader.js';
import { waitFor } from './helpers.js';

const screens: Screen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

async function screen() {
  const xterm = await loadXterm();
  let parsed = 0;
  const hooks = { reply: () => undefined, marker: () => undefined, accept: () => undefined, ready: () => undefined };
  const s = new Screen(xterm, 40, 10, 100_000, { ...hooks, parsed: () => void parsed++ });
  screens.push(s);
  const feed = async (text: string) => {
    const before = parsed;
    s.feed(text);
    await waitFor(() => parsed > before && !s.busy, 'the emulator to parse');
  };
  return { s, feed };
}

describe('rewrites', () => {
  it('blanks drawn over left of the cursor are no rewrite (a fresh line half drawn as a send began); a character replaced is', async () => {
    const { s, feed } = await screen();
    await feed(`line\r\n${' '.repeat(15)}`);
    const shot = shoot(s);
    await feed(`${' '.repeat(25)}\r\x1b[K$ echo x`);
    expect(rewrittenFrom(s, shot)).toBeNull();
    const again = shoot(s);
    await feed('\r\x1b[K$ other');
    expect(rewrittenFrom(s, again)).not.toBeNull();
  });
});
