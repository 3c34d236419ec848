import { lines, run } from './review-a.tmp.mjs';

const W = { wait: true },
  M = { mark: true };
await run('basic', 80, 24, [lines(3000)]);
await run('prompt-after', 80, 24, ['$ ', lines(3000), '\x1b]133;A\x07$ ']);
await run('cursor-home-old-content', 80, 24, [lines(30, 1, 'XXXXXXXXXX'), '\x1b[H', lines(3000)]);
await run('cursor-mid', 80, 24, [lines(30, 1, 'XXXXXXXXXX'), '\x1b[5;10H', lines(3000)]);
await run('bg-color', 80, 24, ['\x1b[41m', lines(3000)]);
await run('scroll-region', 80, 24, ['\x1b[5;20r\x1b[20;1H', lines(3000)]);
await run('scroll-region-below', 80, 24, ['\x1b[5;20r\x1b[24;1H', lines(3000)]);
await run('origin', 80, 24, ['\x1b[?6h', lines(3000)]);
await run('insert', 80, 24, ['\x1b[4h', lines(3000)]);
await run('nowrap', 10, 24, ['\x1b[?7l', lines(3000, 1, 'abcdefghijklmnop')]);
await run('charset-g0', 80, 24, ['\x1b(0', lines(3000, 1, 'qqq')]);
await run('charset-SO', 80, 24, ['\x1b)0\x0e', lines(3000, 1, 'qqq')]);
await run('charset-SS2', 80, 24, ['\x1b*0\x1bN', lines(3000, 1, 'qqq')]);
await run('charset-LS2', 80, 24, ['\x1b*0\x1bn', lines(3000, 1, 'qqq')]);
await run('lnm', 80, 24, ['\x1b[20h', lines(3000)]);
await run('alt', 80, 24, ['\x1b[?1049h', lines(3000)]);
await run('alt-after', 80, 24, [lines(3000), '\x1b[?1049h', lines(3000), '\x1b[?1049l']);
await run('wide-before', 10, 24, ['日本語日本語日本', lines(3000)]);
await run('pending-wrap', 10, 5, ['0123456789', lines(3000)]);
await run('mark-between', 80, 24, [lines(100), W, M, lines(3000), W, M, lines(3000)]);
await run('mark-before-feed', 80, 24, [lines(100), M, lines(3000)]);
await run('csi3j', 80, 24, [lines(3000), W, '\x1b[H\x1b[2J\x1b[3J', lines(3000)]);
await run('csi3j-same', 80, 24, [lines(3000), '\x1b[3J']);
await run('resize-rows-up', 80, 3, [lines(3000), W, { resize: [80, 1000] }]);
await run('resize-rows-up2', 80, 24, [lines(3000), W, { resize: [80, 600] }]);
await run('resize-cols-down', 80, 24, [
  lines(3000, 1, 'abcdefghijklmnopqrstuvwxyz'),
  W,
  { resize: [10, 24] },
  lines(10),
]);
await run('resize-cols-up', 10, 24, [lines(3000, 1, 'abcdefghijklmnopqrstuvwxyz'), W, { resize: [80, 24] }, lines(10)]);
await run('resize-cols-up-wait', 10, 24, [
  lines(3000, 1, 'abcdefghijklmnopqrstuvwxyz'),
  W,
  { resize: [200, 24] },
  W,
  lines(3000),
]);
await run('esc-c', 80, 24, [lines(3000), '\x1bc', lines(3000)]);
await run('small-tc', 8, 3, [lines(30000)], 2000);
await run('hyperlink', 80, 24, ['\x1b]8;;http://x\x07', lines(3000)]);
await run('decstr', 80, 24, ['\x1b[?7l\x1b[!p', lines(3000)]);
await run('one-col', 1, 3, [lines(3000)]);
await run('split-crlf', 80, 24, [lines(3000).slice(0, -1), '\n', lines(3000, 3001)]);
