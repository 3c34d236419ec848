/**
 * Watching a session (what a person's page does): a snapshot of the screen, then every write,
 * with nothing lost or doubled between them, even mid-flood; watching takes no turn from the
 * sends; the service's overview shows every owner's terminals while `list` stays owner-only.
 * A person typing takes a turn: a send meanwhile is TERMINAL_BUSY, a send in flight refuses the
 * keys, and what the keys printed reaches the next send as `earlier`.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createOwner } from '@dsh/core';
import { type TerminalWatch, TYPING_HOLD_MS } from '@dsh/terminal';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { codeOf, codeOfSync } from '../../../../test/support.js';
import { termRig, waitFor } from './helpers.js';

/** A person's emulator: replays a watch, and says what its buffer holds. */
function replay(cols: number, rows: number) {
  const term = new xterm.Terminal({ cols, rows, scrollback: 40_000, allowProposedApi: true });
  let pending = 0;
  const write = (data: string): void => {
    pending += 1;
    term.write(data, () => {
      pending -= 1;
    });
  };
  const lines = (): string[] => {
    const b = term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < b.length; y++) out.push(b.getLine(y)?.translateToString(true) ?? '');
    return out;
  };
  const screen = (): string => {
    const b = term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < term.rows; y++) out.push((b.getLine(b.baseY + y)?.translateToString(true) ?? '').trimEnd());
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return out.join('\n');
  };
  return { write, lines, screen, idle: () => pending === 0, dispose: () => term.dispose() };
}

describe('watching a terminal', () => {
  it('a watcher that joins mid-flood sees every line once: its snapshot and the writes after it meet exactly', async () => {
    const rig = await termRig();
    // Narrow, so the person's emulator can keep every row since it joined.
    const { id } = await rig.terminals.open(rig.me, { type: 'shell', cols: 40, rows: 10 });
    let person: ReturnType<typeof replay> | undefined;
    let tooEarly = 0;
    let snapshot = '';
    let joining: Promise<TerminalWatch> | undefined;
    // A first watcher sees the flood under way and starts the second at that moment, mid-write.
    const scout = await rig.terminals.watch(rig.me, id, (e) => {
      if (joining || e.kind !== 'output' || !/\n5\d{3}\r/.test(e.data)) return;
      joining = rig.terminals.watch(rig.me, id, (event) => {
        if (event.kind === 'snapshot') {
          snapshot = event.data;
          person = replay(event.cols, event.rows);
          person.write(event.data);
        } else if (person) person.write(event.data);
        else tooEarly += 1; // writes come only after the snapshot
      });
    });
    const sending = rig.terminals.send(rig.me, id, { text: 'seq 1 30000; echo flood-end', timeoutMs: 20_000 });
    const watch = await await waitFor(() => joining, 'the flood to be under way');
    const result = await sending;
    expect(result.output).toContain('flood-end');
    const seen = person as ReturnType<typeof replay>;
    await waitFor(
      () => seen.idle() && seen.lines().some((l) => l.startsWith('flood-end')),
      'the watcher to see the end',
    );
    const numbers = seen
      .lines()
      .map((l) => l.trim())
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
    expect(tooEarly).toBe(0);
    expect(numbers.at(-1)).toBe(30000);
    // Contiguous: nothing between the snapshot and the stream was lost or shown twice.
    const first = numbers[0] as number;
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => first + i));
    expect(snapshot).toMatch(/\b\d{4,5}\b/); // the snapshot carried the flood so far
    expect(seen.screen()).toBe(rig.terminals.screen(rig.me, id).text);
    watch.close();
    scout.close();
    seen.dispose();
  });

  it('takes no turn: sends run as before while watched, and a closed watch hears nothing more', async () => {
    const rig = await termRig();
    const sh = await rig.shell();
    const got: string[] = [];
    let snapshot = '';
    const watch = await rig.terminals.watch(rig.me, sh.id, (e) => {
      if (e.kind === 'snapshot') snapshot = e.data;
      else got.push(e.data);
    });
    // The prompt is on the screen by now, or on its way (its text may follow the marker that opened it).
    await waitFor(() => (snapshot + got.join('')).includes('$'), 'the prompt in what the watcher was told');
    const r = await sh.send('echo watched-$((2+3))');
    expect(r.output.trim()).toBe('watched-5');
    expect(r.commandExitCode).toBe(0);
    await waitFor(() => got.join('').includes('watched-5'), 'the write to reach the watcher');
    watch.close();
    const before = got.length;
    await sh.send('echo unwatched');
    expect(got.length).toBe(before);
  });

  it('keeps nothing of a closed watch: many watches of a full screen leave the live heap where it was', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rig = await termRig();
    const sh = await rig.shell();
    await sh.send("for i in $(seq 1 600); do printf '%0119d\\n' $i; done");
    const heap = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const watchOnce = async (): Promise<number> => {
      let size = 0;
      const w = await rig.terminals.watch(rig.me, sh.id, (e) => {
        if (e.kind === 'snapshot') size = e.data.length;
      });
      w.close();
      return size;
    };
    for (let i = 0; i < 20; i++) await watchOnce(); // warm-up
    const before = heap();
    let bytes = 0;
    for (let i = 0; i < 300; i++) bytes += await watchOnce();
    expect(bytes).toBeGreaterThan(300 * 50_000); // each snapshot carried the 500 rows above the screen
    // A leak would keep every snapshot (about 30 MB of text here); allow a tenth of one percent of that per watch.
    expect(heap() - before).toBeLessThan(8 * 1024 * 1024);
  });

  it('overview shows every owner terminal with its owner; list stays owner-only; a closed terminal cannot be watched', async () => {
    const rig = await termRig();
    const other = createOwner('other');
    const mine = await rig.shell();
    const theirs = await rig.terminals.open(other, { type: 'shell' });
    const overview = rig.terminals.overview().map((e) => [e.info.id, e.owner.name]);
    expect(overview).toEqual([
      [mine.id, 'agent'],
      [theirs.id, 'other'],
    ]);
    expect(rig.terminals.list(rig.me).map((t) => t.id)).toEqual([mine.id]);
    expect(await codeOf(rig.terminals.watch(rig.me, theirs.id, () => undefined))).toBe('TERMINAL_NOT_FOUND');
    await rig.terminals.close(other, theirs.id);
    expect(await codeOf(rig.terminals.watch(other, theirs.id, () => undefined))).toBe('TERMINAL_NOT_FOUND');
    expect(rig.terminals.overview().map((e) => e.info.id)).toEqual([mine.id]);
  });
});

describe('a person typing', () => {
  it('takes a turn: sends wait for it, it waits for sends, and the next send is told what it printed', async () => {
    const rig = await termRig();
    const sh = await rig.shell();
    const typed: string[] = [];
    rig.terminals.onType((owner, e) => typed.push(`${owner.name}:${e.terminalId}:${e.input}`));
    for (const key of 'echo keys-$((3*4))\r') rig.terminals.type(rig.me, sh.id, key);
    expect(rig.terminals.list(rig.me)[0]?.busy).toBe(true);
    expect(await codeOf(sh.send('echo too-soon'))).toBe('TERMINAL_BUSY');
    await waitFor(() => rig.terminals.screen(rig.me, sh.id).text.includes('keys-12'), 'the typed command to run');
    // The turn ends once no key came for the hold time; then sends go again.
    await waitFor(() => typed.length === 1, `the typing turn to end (${TYPING_HOLD_MS} ms after the last key)`);
    expect(typed).toEqual([`agent:${sh.id}:echo keys-$((3*4))\r`]);
    const next = await sh.send('echo after');
    expect(next.earlier).toContain('keys-12');
    expect(next.output.trim()).toBe('after');
    // A send in flight refuses keys.
    const holding = sh.send('sleep 1; echo held');
    expect(codeOfSync(() => rig.terminals.type(rig.me, sh.id, 'x'))).toBe('TERMINAL_BUSY');
    expect((await holding).output).toContain('held');
    expect(codeOfSync(() => rig.terminals.type(rig.me, sh.id, ''))).toBe('INVALID_ARGUMENT');
  });

  it('a paste the program does not read holds the turn while it waits; Ctrl-C drops what was not written', async () => {
    const rig = await termRig();
    const sh = await rig.shell();
    const marker = `${rig.cwd}/pasted-${process.pid}`;
    // A program that reads nothing, with echo off: a paste larger than the terminal's input queue waits.
    const started = await sh.send('stty -echo; sleep 30; stty echo', 300);
    expect(started.reason).toBe('timeout');
    const ended: string[] = [];
    rig.terminals.onType((_o, e) => ended.push(e.input));
    rig.terminals.type(rig.me, sh.id, `${'A'.repeat(6000)}\rtouch ${marker}\r`);
    const since = Date.now();
    await waitFor(() => Date.now() - since > 2 * TYPING_HOLD_MS, 'twice the hold time');
    // Still being written: the turn holds, and a model's send waits for it.
    expect(ended).toEqual([]);
    expect(rig.terminals.list(rig.me)[0]?.busy).toBe(true);
    expect(await codeOf(sh.send('echo too-soon'))).toBe('TERMINAL_BUSY');
    // Ctrl-C interrupts the program, ends the turn, and drops the rest of the paste.
    const cancelled = await rig.terminals.cancel(rig.me, sh.id, { timeoutMs: 10_000 });
    expect(cancelled?.cancelled).toBe(true);
    expect(ended.length).toBe(1);
    const after = await sh.send(`stty echo; test -e ${marker} && echo pasted-ran || echo pasted-dropped`);
    expect(after.output).toContain('pasted-dropped');
  });
});
