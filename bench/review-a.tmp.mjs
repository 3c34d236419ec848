import { loadXterm, Screen } from '@dsh/terminal-bash';
import { loadSerialize } from '../packages/terminal/terminal-bash/dist/xterm-loader.js';

const xterm = await loadXterm();
const serialize = await loadSerialize();
const hooks = (log) => ({
  reply() {},
  marker(p, m) {
    log.push(['marker', p]);
  },
  accept() {},
  ready() {},
  parsed() {
    log.push('parsed');
  },
});
const wait = async (...s) => {
  while (s.some((x) => x.busy)) await new Promise((r) => setTimeout(r, 1));
};
const lines = (n, from = 1, suffix = '') =>
  Array.from({ length: n }, (_, i) => `${i + from}${suffix}`).join('\r\n') + '\r\n';
export async function run(name, cols, rows, steps, tc = 1_000_000) {
  const la = [],
    lb = [];
  const a = new Screen(xterm, cols, rows, tc, hooks(la), { skipPlain: true });
  const b = new Screen(xterm, cols, rows, tc, hooks(lb), { skipPlain: false });
  const marks = [];
  for (const st of steps) {
    if (typeof st === 'string') {
      a.feed(st);
      b.feed(st);
    } else if (st.wait) await wait(a, b);
    else if (st.mark) marks.push([a.mark(), b.mark()]);
    else if (st.resize) {
      a.resize(...st.resize);
      b.resize(...st.resize);
    } else if (st.fn) {
      st.fn(a);
      st.fn(b);
    }
  }
  await wait(a, b);
  const diffs = [];
  const cmp = (k, x, y) => {
    const X = JSON.stringify(x),
      Y = JSON.stringify(y);
    if (X !== Y) diffs.push(`${k}: fast=${X.slice(0, 300)} slow=${Y.slice(0, 300)}`);
  };
  cmp('end', a.end, b.end);
  const ta = a.text(0, a.end).text,
    tb = b.text(0, b.end).text;
  if (ta !== tb) {
    let i = 0;
    while (ta[i] === tb[i]) i++;
    diffs.push(
      `text differs at ${i}: fast=${JSON.stringify(ta.slice(i - 20, i + 40))} slow=${JSON.stringify(tb.slice(i - 20, i + 40))}`,
    );
  }
  cmp('page', a.page(undefined, 5000), b.page(undefined, 5000));
  cmp('snapshot', a.snapshot(), b.snapshot());
  cmp('cursor', a.cursor(), b.cursor());
  const sa = await a.serializeParsed(serialize),
    sb = await b.serializeParsed(serialize);
  if (sa !== sb) diffs.push(`serialize differs (len ${sa.length} vs ${sb.length})`);
  marks.forEach(([x, y], i) => cmp('mark' + i, a.offset(x), b.offset(y)));
  console.log(name, 'skipped', a.skipped, diffs.length ? 'DIFF\n  ' + diffs.join('\n  ') : 'same');
  a.dispose();
  b.dispose();
}
export { lines };
