#!/usr/bin/env -S npx tsx
// `npm run bench` (part 10): dsh web (issue 14), in Debian's chromium through playwright-core.
// - keystroke → echo visible on the page, with the terminal at a prompt: from the key press
//   (CDP) to the typed character in the page's DOM, against a raw node-pty echo (write a key to a
//   bare bash, read its echo) measured in the same run;
// - a terminal printing 10 MB (twice): how long until the page shows its end, how responsive the
//   page stays meanwhile (round trips of a script call into it), and memory after each (the
//   server's live heap and RSS, in its own process, and the page's JS heap).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { fmt, MiB, median, percentile } from './lib.mjs';

const quick = process.argv.includes('--quick');
const KEYS = quick ? 40 : 120;
const FLOOD_BYTES = 10_000_000;
const CHROMIUM = process.env.DSH_CHROMIUM ?? '/usr/bin/chromium';
const now = () => performance.now();
const home = mkdtempSync(join(tmpdir(), 'dsh-bench-web-'));

/** A raw node-pty bash: a key written, its echo read back. */
async function rawEcho(n: number): Promise<number[]> {
  const pty = createRequire(import.meta.url)('@lydell/node-pty');
  const p = pty.spawn('bash', ['--norc', '--noprofile', '-i'], {
    name: 'xterm',
    cols: 120,
    rows: 40,
    cwd: home,
    env: { ...process.env, PS1: '$ ' },
  });
  let buf = '';
  let wake: (() => void) | null = null;
  p.onData((d: string) => {
    buf += d;
    wake?.();
  });
  const until = (pred: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!pred()) return;
        wake = null;
        resolve();
      };
      wake = check;
      check();
    });
  await until(() => buf.includes('$ '));
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    buf = '';
    const t0 = now();
    p.write('x');
    await until(() => buf.includes('x'));
    lat.push(now() - t0);
    buf = '';
    p.write('\x7f');
    await until(() => buf.includes('\b'));
  }
  p.kill();
  return lat;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

async function heapMiB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / MiB;
}

const rowsText = (page: Page) => page.$eval('[data-terminal-id] .xterm-rows', (e) => e.textContent ?? '');

// The server runs in its own process (composed as `dsh web` does), so its memory is its own.
const SERVER = fileURLToPath(new URL('./web-server.ts', import.meta.url));
const server = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SERVER, home], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const replies = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
const reply = async (): Promise<Record<string, unknown>> => JSON.parse(String((await replies.next()).value));
const serverMemory = async (): Promise<{ heap: number; rss: number }> => {
  server.stdin.write('mem\n');
  return (await reply()) as { heap: number; rss: number };
};
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const url = String((await reply()).url);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('body[data-connected="true"]');
  await page.click('#open-terminal');
  await page.waitForFunction(() =>
    document.querySelector('[data-terminal-id] .xterm-rows')?.textContent?.includes('$'),
  );
  await page.click('[data-terminal-id] .xterm');

  // Keystroke → echo on the page: from the key's event in the page to the echo in its DOM.
  const web: number[] = [];
  for (let i = 0; i < 2 * (KEYS + 3); i++) {
    await page.evaluate(
      (want: boolean) => {
        const w = window as unknown as { dshLatency: Promise<number> };
        w.dshLatency = new Promise<number>((resolve) => {
          let t0 = 0;
          document.addEventListener('keydown', () => (t0 = performance.now()), { capture: true, once: true });
          const rows = document.querySelector('[data-terminal-id] .xterm-rows') as Element;
          const seen = new MutationObserver(() => {
            if ((rows.textContent ?? '').includes('$ x') !== want) return;
            seen.disconnect();
            resolve(performance.now() - t0);
          });
          seen.observe(rows, { subtree: true, childList: true, characterData: true });
        });
      },
      i % 2 === 0,
    );
    await page.keyboard.press(i % 2 === 0 ? 'x' : 'Backspace');
    const ms = await page.evaluate(() => (window as unknown as { dshLatency: Promise<number> }).dshLatency);
    if (i >= 6 && i % 2 === 0) web.push(ms); // the first keys warm the page up; Backspace is not measured
  }
  const raw = await rawEcho(KEYS);
  console.log('dsh web (issue 14)');
  console.log(
    `  keystroke → echo visible on the page, median ${fmt(median(web), 1)} ms (p95 ${fmt(percentile(web, 95), 1)}; goal ≤ 30)` +
      ` · raw node-pty echo ${fmt(median(raw), 2)} ms · ratio ${fmt(median(web) / median(raw), 1)}×`,
  );

  // 10 MB through a terminal, twice: the second shows whether memory keeps growing.
  const memory = [await serverMemory()];
  const heap = [await heapMiB(page)];
  let rssPeak = memory[0]?.rss as number;
  for (const round of Array.from({ length: Number(process.env.DSH_BENCH_WEB_ROUNDS ?? 2) }, (_, i) => i + 1)) {
    await page.keyboard.type(
      `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' x | fold -w 99; echo flood-$((${round}+0))-done`,
    );
    const t0 = now();
    await page.keyboard.press('Enter');
    const pings: number[] = [];
    for (;;) {
      const p0 = now();
      const text = await rowsText(page);
      pings.push(now() - p0);
      rssPeak = Math.max(rssPeak, rssMiB(server.pid as number));
      if (text.includes(`flood-${round}-done`)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const floodMs = now() - t0;
    memory.push(await serverMemory());
    heap.push(await heapMiB(page));
    console.log(
      `  10 MB printed by a terminal (round ${round}): the page shows its end after ${fmt(floodMs / 1000, 2)} s;` +
        ` page round trips meanwhile median ${fmt(median(pings), 1)} ms, max ${fmt(Math.max(...pings), 1)} ms (${pings.length} looks)`,
    );
  }
  console.log(
    `  memory after each: server heap ${memory.map((m) => fmt(m.heap, 1)).join(' → ')} MiB,` +
      ` RSS ${memory.map((m) => fmt(m.rss, 1)).join(' → ')} MiB (peak ${fmt(rssPeak, 1)}); page JS heap ${heap.map((m) => fmt(m, 1)).join(' → ')} MiB`,
  );
} finally {
  await browser.close();
  const exited = new Promise((r) => server.once('exit', r));
  server.stdin.end();
  await exited;
  rmSync(home, { recursive: true, force: true });
}
