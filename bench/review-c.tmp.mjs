import { lines, run } from './review-a.tmp.mjs';

const W = { wait: true };
await run('esc-c-wait', 80, 24, [lines(3000), W, '\x1bc', W, lines(3000)]);
await run('esc-c-nowait-short', 80, 24, [lines(100), '\x1bc', lines(3000)]);
await run('esc-c-then-feeds', 80, 24, [lines(100), '\x1bc', lines(100, 1), lines(100, 101)]);
await run('esc-c-wait1', 80, 24, [lines(100), '\x1bc', W, lines(3000)]);
await run('reset-explicit', 80, 24, [lines(3000), '\x1b[!p\x1b[?1049l\x1b[H\x1b[2J', lines(3000)]);
