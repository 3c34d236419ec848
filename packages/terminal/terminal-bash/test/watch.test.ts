/**
 * Watching a session (what a person's page does): a snapshot of the screen, then every write,
 * with nothing lost or doubled between them, even mid-flood; watching takes no turn from the
 * sends; the service's overview shows every owner's terminals while `list` stays owner-only.
 */
import { createOwner } from '@dsh/core';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../test/support.js';
import { termRig, waitFor } from './helpers.js';

/** A person's emulator: replays a watch, and says what its buffer holds. */
function replay(cols: number, rows: number) {
  const term = new xterm.Terminal({ cols, rows, scrollback: 5_000, allowProposedApi: true });
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
    const sh = await rig.shell();
    const sending = sh.send('seq 1 30000; echo flood-end');
    await waitFor(() => /\b5\d{3}\b/.test(rig.terminals.screen(rig.me, sh.id).text), 'the flood to be under way');
    let person: ReturnType<typeof replay> | undefined;
    const early: string[] = [];
    const watch = await rig.terminals.watch(rig.me, sh.id, (data) => (person ? person.write(data) : early.push(data)));
    person = replay(watch.cols, watch.rows);
    person.write(watch.snapshot);
    for (const d of early) person.write(d);
    const result = await sending;
    expect(result.output).toContain('flood-end');
    const seen = person;
    await waitFor(
      () => seen.idle() && seen.lines().some((l) => l.startsWith('flood-end')),
      'the watcher to see the end',
    );
    const numbers = seen
      .lines()
      .map((l) => l.trim())
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
    expect(numbers.at(-1)).toBe(30000);
    // Contiguous: nothing between the snapshot and the stream was lost or shown twice.
    const first = numbers[0] as number;
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => first + i));
    expect(first).toBeLessThan(25000); // the snapshot carried rows from before the watch began
    expect(seen.screen()).toBe(rig.terminals.screen(rig.me, sh.id).text);
    watch.close();
    seen.dispose();
  });

  it('takes no turn: sends run as before while watched, and a closed watch hears nothing more', async () => {
    const rig = await termRig();
    const sh = await rig.shell();
    const got: string[] = [];
    const watch = await rig.terminals.watch(rig.me, sh.id, (d) => got.push(d));
    expect(watch.snapshot).toContain('$');
    const r = await sh.send('echo watched-$((2+3))');
    expect(r.output.trim()).toBe('watched-5');
    expect(r.commandExitCode).toBe(0);
    await waitFor(() => got.join('').includes('watched-5'), 'the write to reach the watcher');
    watch.close();
    const before = got.length;
    await sh.send('echo unwatched');
    expect(got.length).toBe(before);
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
