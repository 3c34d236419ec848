/**
 * Answers to the colour queries a real terminal answers (OSC 10/11/12 for the default colours,
 * OSC 4 for palette entries), so programs that ask (vim, some prompts) never wait for a reply.
 */
import type { IParser } from '@xterm/headless';

/** What the colour queries are answered with: light grey on black, and xterm's palette. */
const FOREGROUND = 'rgb:c0c0/c0c0/c0c0';
const BACKGROUND = 'rgb:0000/0000/0000';

/** xterm's colour for palette entry `index` (0–255), as an X11 `rgb:` spec. */
export function xtermPalette(index: number): string {
  const basic = [
    [0, 0, 0],
    [205, 0, 0],
    [0, 205, 0],
    [205, 205, 0],
    [0, 0, 238],
    [205, 0, 205],
    [0, 205, 205],
    [229, 229, 229],
    [127, 127, 127],
    [255, 0, 0],
    [0, 255, 0],
    [255, 255, 0],
    [92, 92, 255],
    [255, 0, 255],
    [0, 255, 255],
    [255, 255, 255],
  ];
  let rgb: number[];
  if (index < 16) rgb = basic[index] as number[];
  else if (index < 232) {
    const i = index - 16;
    const level = (v: number): number => (v === 0 ? 0 : 55 + v * 40);
    rgb = [level(Math.floor(i / 36)), level(Math.floor(i / 6) % 6), level(i % 6)];
  } else rgb = Array(3).fill(8 + (index - 232) * 10);
  const hex = (v: number): string => (v * 257).toString(16).padStart(4, '0');
  return `rgb:${rgb.map(hex).join('/')}`;
}

/** Registers the colour-query answers on `parser`; replies go to `reply` (the PTY). */
export function answerColourQueries(parser: IParser, reply: (data: string) => void): void {
  for (const [ident, color] of [
    [10, FOREGROUND],
    [11, BACKGROUND],
    [12, FOREGROUND],
  ] as const) {
    parser.registerOscHandler(ident, (data) => {
      if (data !== '?') return false;
      reply(`\x1b]${ident};${color}\x1b\\`);
      return true;
    });
  }
  parser.registerOscHandler(4, (data) => {
    const parts = data.split(';');
    let answered = false;
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const index = Number(parts[i]);
      if (parts[i + 1] !== '?' || !Number.isInteger(index) || index < 0 || index > 255) continue;
      reply(`\x1b]4;${index};${xtermPalette(index)}\x1b\\`);
      answered = true;
    }
    return answered;
  });
}
