import { loadXterm, Screen } from '@dsh/terminal-bash';
import { lines } from './review-a.tmp.mjs';

const xterm = await loadXterm();
const wait = async (s) => {
  while (s.busy) await new Promise((r) => setTimeout(r, 1));
};
for (const [n, seq] of [
  [3000, '\x1bc'],
  [3000, '\x1b[!p\x1b[?1049l\x1b[H\x1b[2J'],
  [2100, '\x1bc'],
  [1900, '\x1bc'],
]) {
  const s = new Screen(
    xterm,
    80,
    24,
    1e6,
    { reply() {}, marker() {}, accept() {}, ready() {}, parsed() {} },
    { skipPlain: false },
  );
  s.feed(lines(n));
  await wait(s);
  const c0 = s.cursor(),
    e0 = s.end;
  s.feed(seq);
  await wait(s);
  const c1 = s.cursor(),
    e1 = s.end;
  s.feed(lines(3000));
  await wait(s);
  const t = s.text(0, s.end).text;
  console.log(
    n,
    JSON.stringify(seq),
    c0,
    e0,
    c1,
    e1,
    s.cursor(),
    'has "\\n1\\n2\\n":',
    t.includes(`${n - 23}\n1\n2\n`),
    t.slice(e1 - 10, e1 + 30).replaceAll('\n', '|'),
  );
  s.dispose();
}
