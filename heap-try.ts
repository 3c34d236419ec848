import { serveWeb } from '@dsh/web';
import { compose } from 'dsh';
import WebSocket from 'ws';

const dsh = await compose({ preset: 'full', config: { sandbox: { mode: 'danger-full-access' } } });
const web = await serveWeb({ host: dsh });
const origin = web.url.replace(/\/t\/.*$/, '');
const ws = new WebSocket(`${web.url.replace('http:', 'ws:')}ws`, { origin });
await new Promise((r) => ws.once('open', r));
let id = '';
let text = '';
let screens = 0;
let pendingAck = 0;
ws.on('message', (d) => {
  const m = JSON.parse(String(d));
  if (m.type === 'screen') {
    id = m.id;
    screens++;
    text = m.data.slice(-300);
  }
  if (m.type === 'output') text = (text + m.data).slice(-300);
  if (m.type === 'screen' || m.type === 'output') {
    pendingAck += m.data.length;
  }
});
setInterval(() => {
  if (pendingAck && id) {
    ws.send(JSON.stringify({ type: 'ack', id, chars: pendingAck }));
    pendingAck = 0;
  }
}, 400).unref();
ws.send(JSON.stringify({ type: 'open' }));
while (!id) await new Promise((r) => setTimeout(r, 50));
const mem = () => {
  (globalThis as any).gc();
  const m = process.memoryUsage();
  return `heap ${(m.heapUsed / 1048576).toFixed(1)} rss ${(m.rss / 1048576).toFixed(1)} screens ${screens}`;
};
console.log('start', mem());
for (let i = 0; i < 6; i++) {
  ws.send(
    JSON.stringify({
      type: 'keys',
      id,
      data: `head -c 10000000 /dev/zero | tr '\\0' x | fold -w 99; echo done-$((${i}+100))\r`,
    }),
  );
  while (!text.includes(`done-${i + 100}`)) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1500));
  console.log('round', i + 1, mem());
  if (i === 1 || i === 5) (await import('node:v8')).writeHeapSnapshot(`/tmp/heap-${i}.heapsnapshot`);
}
ws.close();
await web.close();
await dsh.dispose();
