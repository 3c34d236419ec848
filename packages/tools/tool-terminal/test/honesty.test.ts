/**
 * What terminal_send tells a model is what happened (issue 20, a, f, k): input a program held is
 * named as that program's, a known prompt names the key that continues, a send to a shell that
 * had exited is an error, a wait cut to the caller's limit says so, and `wait_ms` types nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResult } from '@dsh/core';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support.js';
import { rig as tools } from './rig.js';

async function rig() {
  const { c, agent, workspace } = await tools('dsh-tterm-honest-');
  const id = (await c.tools.call(agent, 'terminal_open', {})).data?.terminal_id as string;
  const send = (args: Record<string, unknown>, options = {}): Promise<ToolResult> =>
    c.tools.call(agent, 'terminal_send', { terminal_id: id, ...args }, options);
  const call = (tool: string, args: Record<string, unknown>): Promise<ToolResult> =>
    c.tools.call(agent, tool, { terminal_id: id, ...args });
  const list = (): Promise<ToolResult> => c.tools.call(agent, 'terminal_list', {});
  return { send, call, list, workspace };
}

describe('terminal_send tells where input went', () => {
  it("vim's hit-enter prompt: the key that continues; a command typed there is vim's; vim's exit is vim's", async () => {
    const r = await rig();
    writeFileSync(join(r.workspace, 'notes.txt'), 'one\n');
    await r.send({ input: 'vim -N -u NONE notes.txt' });
    const shelled = await r.send({ input: ':!true' });
    expect(shelled.text).toContain(
      `[the screen shows vim's hit-enter prompt: terminal_send keys ["Enter"] to continue past it]`,
    );
    const typed = await r.send({ input: 'ls' });
    expect(typed.text).toMatch(/\[your input went to vim -N -u NONE notes\.txt, which holds the terminal/);
    expect(typed.text).not.toMatch(/exit code/);
    expect(typed.data).toMatchObject({ exit_code: null, input_to: 'vim -N -u NONE notes.txt' });
    await r.send({ keys: ['Escape'], submit: false });
    const quit = await r.send({ input: ':q!' });
    expect(quit.text).toMatch(
      /^\[vim -N -u NONE notes\.txt read your input and has exited \(exit code 0\); the shell is at its prompt and ran none of your input as a command\]$/,
    );
    expect(quit.data).toMatchObject({ exit_code: null, program_exit_code: 0 });
  });

  it("a program's exit is its own only when it ended its command line: python3; echo rc=$?", async () => {
    const r = await rig();
    await r.send({ input: 'python3 -q; echo after=$?' });
    const quit = await r.send({ input: 'import sys; sys.exit(4)' });
    expect(quit.text).toContain('after=4');
    expect(quit.text).toMatch(
      /\[(\S*python3) -q read your input and has exited; the command line that ran it \(python3 -q; echo after=\$\?\) finished with exit code 0, which is its last command's status, not necessarily \1 -q's;/,
    );
    expect(quit.data).toMatchObject({
      exit_code: null,
      program_exit_code: 0,
      program_line: 'python3 -q; echo after=$?',
    });
    // Run alone, its code is its own.
    await r.send({ input: 'python3 -q' });
    const alone = await r.send({ input: 'import sys; sys.exit(3)' });
    expect(alone.text).toMatch(/\[\S*python3 -q read your input and has exited \(exit code 3\)/);
    expect(alone.data).toMatchObject({ program_exit_code: 3, program_line: null });
  });

  it('a Python block left open is told, with the key that closes it', async () => {
    const r = await rig();
    await r.send({ input: 'python3 -q' });
    const open = await r.send({ input: 'def f(x):\n    return x * 2' });
    expect(open.text).toContain(
      `[the screen shows the Python REPL's continuation prompt (a block is still open): terminal_send keys ["Enter"] to continue past it]`,
    );
    expect((await r.send({ keys: ['Enter'], submit: false })).text).not.toMatch(/continuation prompt/);
    expect((await r.send({ input: 'print(f(21))' })).text).toMatch(/^print\(f\(21\)\)\n42\n/);
    await r.send({ input: 'exit()' });
  });

  it('a page a cancel offers for what printed before it is still there once the cancel returns', async () => {
    const r = await rig();
    // The first burst prints while no send waits (the cancel's `earlier`); the second prints during
    // the cancel (Ctrl-C is ignored) and pushes the first out of the scrollback before it returns.
    const script = "trap '' INT; sleep 0.3; seq 1 300000; sleep 1; seq 1 300000; sleep 30";
    expect((await r.send({ input: script, timeout_ms: 100 })).data).toMatchObject({ reason: 'timeout' });
    await waitFor(async () => /sleep 1$/.test((await r.list()).text), 'the first burst printed');
    const stopped = await r.call('terminal_cancel', {});
    const offered = /terminal_read offset (\d+) reads the \d+ still kept/.exec(
      stopped.text.split('[this send:]')[0] ?? '',
    );
    if (offered) {
      const page = await r.call('terminal_read', { offset: Number(offered[1]), limit: 40 });
      expect(page.text).not.toMatch(/no longer kept/);
    } else {
      expect(stopped.text).toMatch(
        /^\[printed since your last send:\]\n\[\d+ earlier characters of it not shown; \d+ are no longer kept/,
      );
    }
  });

  it('text left on the command line is told when the next line runs with it', async () => {
    const r = await rig();
    expect((await r.send({ input: 'q', submit: false })).text).toMatch(/typed on the command line, not run/);
    const ran = await r.send({ input: 'echo hi' });
    expect(ran.text).toContain('qecho: command not found');
    expect(ran.text).toContain(
      '[the command line already held "q" (typed earlier without Enter): the shell ran it with your input as one line]',
    );
    const clean = await r.send({ input: 'echo hi' });
    expect(clean.text).toBe('hi\n[ready at the prompt; exit code: 0]');
  });

  it('a send to a shell that had exited is an error; the send that ended it is not', async () => {
    const r = await rig();
    const ended = await r.send({ input: 'exit 4' });
    expect(ended).toMatchObject({ isError: false, data: { reason: 'session_exited' } });
    const after = await r.send({ input: 'echo hi' });
    expect(after).toMatchObject({ isError: true, data: { reason: 'session_exited' } });
  });

  it('wait_ms types nothing and waits; a wait cut to the caller’s limit says so', async () => {
    const r = await rig();
    const slow = await r.send({ input: 'sleep 1; echo slept', timeout_ms: 20_000 }, { yieldMs: 100 });
    expect(slow.text).toMatch(/\[the wait was cut from 20000 to 100 ms/);
    expect(slow.data).toMatchObject({ reason: 'timeout', timeout_cut_to_ms: 100 });
    const waited = await r.send({ wait_ms: 20_000 });
    expect(waited.text).toContain('slept');
    expect(waited.data).toMatchObject({ reason: 'stdin_read', exit_code: 0 });
    // A wait returns with new output once it pauses, before the command is done.
    await r.send({ input: 'echo tick1; sleep 1; echo tick2; sleep 30', timeout_ms: 100 });
    const ticked = await r.send({ wait_ms: 20_000 });
    expect(ticked.text).toMatch(/tick/);
    expect(ticked.text).toMatch(/\[it printed the above and paused; it still runs/);
    expect(ticked.data).toMatchObject({ reason: 'inferred_idle', exit_code: null });
    await r.call('terminal_cancel', {});
    const both = await r.send({ input: 'ls', wait_ms: 100 });
    expect(both).toMatchObject({ isError: true, data: { error: { code: 'INVALID_ARGUMENT' } } });
  });

  it('terminal_resize tells the PTY and the screen together: stty size, tput and the screen label agree', async () => {
    const r = await rig();
    const resized = await r.call('terminal_resize', { cols: 100, rows: 30 });
    expect(resized).toMatchObject({ isError: false, data: { cols: 100, rows: 30 } });
    const size = await r.send({ input: 'stty size; tput cols' });
    expect(size.text).toContain('30 100\n100');
    const screen = await r.call('terminal_read', { screen: true });
    expect(screen.text).toMatch(
      /^\[screen 100×30, the shell; cursor at row \d+, column \d+; »…« marks highlighted text\]/,
    );
    const htop = await r.send({ input: 'htop' });
    expect(htop.data).toMatchObject({ screen: true });
    const shown = htop.text.split('\n').slice(1, -1);
    expect(shown.length).toBeLessThanOrEqual(30);
    for (const line of shown) expect(line.replace(/[»«]/g, '').length).toBeLessThanOrEqual(100);
    await r.send({ keys: ['q'], submit: false });
    const bad = await r.call('terminal_resize', { cols: 0, rows: 30 });
    expect(bad.isError).toBe(true);
  });

  it('a flood costs little: repeated lines collapse with an exact count, and a cancel keeps to that', async () => {
    const r = await rig();
    const flood = await r.send({ input: 'yes', timeout_ms: 1_500 });
    expect(flood.data).toMatchObject({ reason: 'timeout' });
    expect(flood.text).toMatch(/\ny\n\[the line above \d+ more times\]/);
    const cancel = await r.call('terminal_cancel', {});
    expect(cancel.text).toMatch(/\[interrupted; ready at the prompt; exit code: 130\]$/);
    expect(flood.text.length + cancel.text.length).toBeLessThan(4_000);
    // What a flood printed while no send waited is told as briefly, collapsed, and its cut names a
    // page that reads it.
    const burst = await r.send({ input: 'sleep 0.5; yes | head -n 200000; sleep 30', timeout_ms: 100 });
    expect(burst.data).toMatchObject({ reason: 'timeout' });
    await waitFor(async () => /sleep 30/.test((await r.list()).text), 'the burst printed');
    const stopped = await r.call('terminal_cancel', {});
    expect(stopped.text.length).toBeLessThan(2_000);
    const head =
      /^\[printed since your last send:\]\n\[\d+ earlier characters of it not shown; terminal_read offset (\d+) reads the \d+ still kept[^\]]*\]\ny\n\[the line above \d+ more times\]\n/.exec(
        stopped.text,
      );
    expect(head, stopped.text).not.toBeNull();
    const page = await r.call('terminal_read', { offset: Number(head?.[1]), limit: 10 });
    expect(page.text.startsWith('y\ny\ny\ny\ny\n')).toBe(true);
    const after = await r.send({ input: 'printf "a\\na\\na\\na\\nb\\n"' });
    expect(after.text).toMatch(/^a\n\[the line above 3 more times\]\nb\n/);
  });
});
