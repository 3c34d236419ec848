/**
 * The screen a person sees (issue 20, j): a screen result names the cursor and marks what a
 * program set apart — less's search match (reverse video), a menu's selected row (a background
 * few cells share) — as »…«, so a model can tell which row is selected and where a match is.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { termRig } from './helpers.js';

describe('screen marks', () => {
  it("less's search match is marked, and the cursor is told", async () => {
    const r = await termRig();
    const sh = await r.shell();
    writeFileSync(join(r.cwd, 'f.txt'), 'alpha\nbeta needle gamma\ndelta\n');
    await sh.send('less f.txt');
    const found = await sh.send('/needle');
    expect(found.screen).toBe(true);
    expect(found.output).toContain('beta »needle« gamma');
    expect(found.cursor).toEqual({ row: expect.any(Number), col: expect.any(Number) });
    const view = r.terminals.screen(r.me, sh.id);
    expect(view.marked).toContain('»needle«');
    expect(view.text).toContain('beta needle gamma'); // the plain text has no marks
    await r.terminals.send(r.me, sh.id, { text: '', keys: ['q'], timeoutMs: 20_000 });
  });

  it("whiptail's selected row is marked, and moves with Down", async () => {
    const r = await termRig();
    const sh = await r.shell();
    const menu = await sh.send('whiptail --menu Pick 15 40 3 a Apple b Banana c Cherry');
    expect(menu.screen).toBe(true);
    const selected = (text: string) => text.split('\n').filter((l) => /»[^«]*(Apple|Banana|Cherry)/.test(l));
    expect(selected(menu.output).join('\n')).toMatch(/Apple/);
    expect(selected(menu.output)).toHaveLength(1);
    const down = await r.terminals.send(r.me, sh.id, { text: '', keys: ['Down'], submit: false, timeoutMs: 20_000 });
    expect(selected(down.output).join('\n')).toMatch(/Banana/);
    expect(selected(down.output)).toHaveLength(1);
    await r.terminals.send(r.me, sh.id, { text: '', keys: ['Escape'], submit: false, timeoutMs: 20_000 });
  });
});
