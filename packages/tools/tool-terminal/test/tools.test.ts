import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOwner } from '@dsh/core';
import { describe, expect, it } from 'vitest';
import { isAlive, waitFor } from '../../../../test/support.js';
import { rig } from './rig.js';

describe('terminal tools', () => {
  it('open, send, read, close: a model-readable round trip', async () => {
    const r = await rig();
    expect(r.c.tools.list().map((t) => t.name)).toEqual([
      'terminal_open',
      'terminal_send',
      'terminal_read',
      'terminal_resize',
      'terminal_cancel',
      'terminal_list',
      'terminal_close',
    ]);
    const opened = await r.call('terminal_open', { name: 'main' });
    expect(opened.isError).toBe(false);
    const id = opened.data.terminal_id as string;
    expect(opened.text).toContain(`Opened terminal ${id} (main) in ${r.workspace}`);
    const sent = await r.call('terminal_send', { terminal_id: id, input: 'echo hi; false' });
    expect(sent.text).toBe('hi\n[ready at the prompt; exit code: 1]');
    expect(sent.data).toMatchObject({ reason: 'stdin_read', exit_code: 1, state: 'running' });
    const read = await r.call('terminal_read', { terminal_id: id, limit: 200 });
    expect(read.text).toMatch(/hi\n[\s\S]*\[characters \d+–\d+; oldest kept 0; continue with offset \d+\]$/);
    const asking = await r.call('terminal_send', { terminal_id: id, input: `python3 -c "print(input('? ') + '!')"` });
    expect(asking.text).toMatch(/\[waiting for input/);
    expect((await r.call('terminal_send', { terminal_id: id, input: 'yes' })).text).toContain('yes!');
    expect((await r.call('terminal_close', { terminal_id: id })).data.closed).toBe(true);
    expect((await r.call('terminal_close', { terminal_id: id })).data.closed).toBe(false);
    const gone = await r.call('terminal_send', { terminal_id: id, input: 'ls' });
    expect(gone).toMatchObject({ isError: true, data: { error: { code: 'TERMINAL_NOT_FOUND' } } });
  });

  it('timeout and cancel: the session keeps running; cancel interrupts what is in flight', async () => {
    const r = await rig();
    const id = (await r.call('terminal_open', {})).data.terminal_id as string;
    const slow = await r.call('terminal_send', { terminal_id: id, input: 'sleep 100', timeout_ms: 200 });
    expect(slow.text).toMatch(/\[still running after 200 ms;/);
    const pending = r.call('terminal_send', { terminal_id: id, input: 'sleep 100' });
    const terminals = r.c.ctx.get('terminals');
    await waitFor(() => terminals.list(r.agent)[0]?.busy, 'the second send to hold the terminal');
    const busy = await r.call('terminal_send', { terminal_id: id, input: 'ls' });
    expect(busy).toMatchObject({ isError: true, data: { error: { code: 'TERMINAL_BUSY' } } });
    const cancel = await r.call('terminal_cancel', { terminal_id: id });
    expect(cancel.data).toMatchObject({ cancelled: true, exit_code: 130 });
    expect(cancel.text).toContain('[interrupted; ready at the prompt; exit code: 130]');
    expect((await pending).data).toMatchObject({ cancelled: true });
    const idle = await r.call('terminal_cancel', { terminal_id: id });
    expect(idle.data.cancelled).toBe(false);
    expect(idle.text).toContain('Nothing is running');
  });

  it('another agent cannot see or use the terminal; bad arguments are isError', async () => {
    const r = await rig();
    const id = (await r.call('terminal_open', {})).data.terminal_id as string;
    const other = createOwner('agent');
    for (const [tool, args] of [
      ['terminal_send', { terminal_id: id, input: 'id' }],
      ['terminal_read', { terminal_id: id }],
      ['terminal_cancel', { terminal_id: id }],
      ['terminal_close', { terminal_id: id }],
    ] as const) {
      expect((await r.call(tool, args, other)).data.error).toEqual({ code: 'TERMINAL_NOT_FOUND' });
    }
    expect((await r.call('terminal_list', {}, other)).data.terminals).toEqual([]);
    const badKey = await r.call('terminal_send', { terminal_id: id, keys: ['Escape', 'Hyper-q'] });
    expect(badKey.data.error).toEqual({ code: 'INVALID_ARGUMENT' });
    expect(badKey.text).toContain('PageDown'); // the message lists the valid names
    expect((await r.call('terminal_send', { terminal_id: id, timeout_ms: 0 })).data.error).toEqual({
      code: 'INVALID_ARGUMENT',
    });
    expect((await r.call('terminal_read', { terminal_id: id, limit: 0 })).data.error).toEqual({
      code: 'INVALID_ARGUMENT',
    });
    expect((await r.call('terminal_open', { workdir: 'missing' })).data.error).toEqual({ code: 'WORKDIR_NOT_FOUND' });
    expect((await r.call('terminal_open', { name: 'has space' })).data.error).toEqual({ code: 'INVALID_ARGUMENT' });
  });

  it('a full-screen program reads as a screen; keys drive it; terminal_list names the foreground', async () => {
    const r = await rig();
    const id = (await r.call('terminal_open', {})).data.terminal_id as string;
    writeFileSync(join(r.workspace, 'f.txt'), 'alpha\nbeta\n');
    const vim = await r.call('terminal_send', { terminal_id: id, input: 'vim f.txt' });
    expect(vim.data).toMatchObject({ screen: true, reason: 'stdin_read', exit_code: null });
    expect(vim.text).toMatch(/^\[screen; cursor at row 1, column 1; »…« marks highlighted text\]\nalpha\nbeta\n~/);
    expect(vim.text).toMatch(/\[waiting for input: a full-screen program shows the screen above;.*keys/);
    const listed = await r.call('terminal_list', {});
    expect(listed.data.terminals).toEqual([
      {
        terminal_id: id,
        name: null,
        state: 'running',
        foreground: expect.stringMatching(/^vim/),
        exit_code: null,
        exit_signal: null,
      },
    ]);
    const shot = await r.call('terminal_read', { terminal_id: id, screen: true });
    expect(shot.text).toMatch(
      /^\[screen \d+×\d+, a full-screen program; cursor at row 1, column 1; [^\]]*\]\nalpha\nbeta\n/,
    );
    await r.call('terminal_send', { terminal_id: id, input: 'dd', submit: false });
    await r.call('terminal_send', { terminal_id: id, keys: ['Escape'] });
    const quit = await r.call('terminal_send', { terminal_id: id, input: ':wq' });
    expect(quit.data).toMatchObject({ screen: false, exit_code: null, program_exit_code: 0 });
    expect(readFileSync(join(r.workspace, 'f.txt'), 'utf8')).toBe('beta\n');
    expect((await r.call('terminal_list', {})).text).toBe(`${id}  at the prompt`);
  });

  it('status lines say what the shell is doing: incomplete line, not submitted, no command, ignored Ctrl-C, killed', async () => {
    const r = await rig();
    const id = (await r.call('terminal_open', {})).data.terminal_id as string;
    const send = (args: object) => r.call('terminal_send', { terminal_id: id, ...args });
    expect((await send({ input: 'echo "open' })).text).toMatch(/the shell waits for the rest of the command/);
    expect((await send({ input: 'closed"' })).text).toMatch(/exit code: 0\]$/);
    expect((await send({ input: 'ls', submit: false })).text).toMatch(/typed on the command line, not run/);
    await r.call('terminal_cancel', { terminal_id: id });
    expect((await send({})).text).toMatch(/\[ready at the prompt; no command ran\]$/);
    expect((await send({ keys: [] })).data.error).toEqual({ code: 'INVALID_ARGUMENT' });
    await send({ input: 'trap "" INT; sleep 30', timeout_ms: 200 });
    const ignored = await r.call('terminal_cancel', { terminal_id: id });
    expect(ignored.text).toMatch(/Ctrl-C was sent, but it still runs after 5000 ms/);
    await r.call('terminal_close', { terminal_id: id });
    const next = (await r.call('terminal_open', {})).data.terminal_id as string;
    const killed = await r.call('terminal_send', { terminal_id: next, input: 'kill -9 $$' });
    expect(killed.text).toMatch(/the shell exited \(killed by SIGKILL\)/);
    expect((await r.call('terminal_list', {})).text).toBe(`${next}  exited (killed by SIGKILL)`);
  });

  it('counts of what is not shown are exact: seq 1 200000', async () => {
    const r = await rig();
    const id = (await r.call('terminal_open', {})).data.terminal_id as string;
    let total = 0;
    for (let i = 1; i <= 200_000; i++) total += String(i).length + 1;
    const sent = await r.call('terminal_send', { terminal_id: id, input: 'seq 1 200000', timeout_ms: 60_000 });
    const head =
      /^\[(\d+) earlier characters of this output not shown; terminal_read offset (\d+) reads the (\d+) still kept; the first (\d+) are no longer kept \(past the scrollback\) and no complete copy exists: [^\]]*\]\n/.exec(
        sent.text,
      );
    expect(head).not.toBeNull();
    const [notShown, from, kept, gone] = (head as RegExpExecArray).slice(1).map(Number) as [
      number,
      number,
      number,
      number,
    ];
    const status = '\n[ready at the prompt; exit code: 0]';
    expect(sent.text.endsWith(`200000${status}`)).toBe(true);
    const body = sent.text.slice(head?.[0].length, -status.length);
    expect(notShown + body.length + 1).toBe(total); // the final line end
    expect(kept + gone).toBe(notShown);
    expect(sent.data).toMatchObject({ omitted: notShown, omitted_gone: gone });
    // The cut falls on a line: the first line shown is a whole number, the one after the last left out.
    const firstShown = Number(body.split('\n')[0]);
    let before = 0;
    for (let i = 1; i < firstShown; i++) before += String(i).length + 1;
    expect(before).toBe(notShown);
    // The offset promised is still kept, and reads on exactly where the gone part ends: at a line's
    // start (a line's tail alone, `6271` of `56271`, reads like a value of its own).
    const page = await r.call('terminal_read', { terminal_id: id, offset: from, limit: 30 });
    expect(page.text).not.toMatch(/no longer kept/);
    const full = Array.from({ length: 200_000 }, (_, k) => `${k + 1}\n`).join('');
    expect(full[gone - 1]).toBe('\n');
    expect(page.text.startsWith(full.slice(gone, gone + 20))).toBe(true);
    const firstKept = Number(page.text.split('\n')[0]);
    expect(full.slice(0, gone).endsWith(`\n${firstKept - 1}\n`)).toBe(true);
    // Read from the start: the page says the earlier output is gone and begins at that same line.
    const fromZero = await r.call('terminal_read', { terminal_id: id, offset: 0, limit: 30 });
    expect(fromZero.text).toMatch(/earlier output is no longer kept/);
    expect(fromZero.text.startsWith(`${firstKept}\n${firstKept + 1}\n`)).toBe(true);
  });

  it('teardown closes every terminal and leaves no process', async () => {
    const r = await rig();
    const id = (await r.call('terminal_open', {})).data.terminal_id as string;
    const pid = Number.parseInt((await r.call('terminal_send', { terminal_id: id, input: 'echo $$' })).text, 10);
    expect(isAlive(pid)).toBe(true);
    await r.c.dispose();
    expect(isAlive(pid)).toBe(false);
  });
});
