/**
 * Input lands where the model thinks it does (issue 20, a, b, f, g): what a program held is told
 * as the program's, never as a command that ran; several lines go to a program that takes pastes
 * as one paste; keys alone, a trailing newline and a send that only waits work.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { termRig } from './helpers.js';

describe('input held by a program', () => {
  it("a command typed at vim's hit-enter prompt is vim's, never told as run", async () => {
    const r = await termRig();
    const sh = await r.shell();
    writeFileSync(join(r.cwd, 'notes.txt'), 'one\n');
    const key = (keys: string[], text = '') => r.terminals.send(r.me, sh.id, { text, keys, timeoutMs: 20_000 });
    expect(await sh.send('vim -N -u NONE notes.txt')).toMatchObject({ reason: 'stdin_read', screen: true });
    const shell = await sh.send(':!echo from-vim');
    expect(shell.inputTo).toMatch(/^vim /);
    expect(shell.knownPrompt).toEqual({ prompt: "vim's hit-enter prompt", keys: ['Enter'] });
    // The model types a command as if at the shell: vim takes it, and nothing says it ran.
    const typed = await sh.send('echo ok; false');
    expect(typed).toMatchObject({ atPrompt: false, commandExitCode: null, programExitCode: null });
    expect(typed.inputTo).toMatch(/^vim /);
    await key(['Escape']);
    const quit = await sh.send(':q!');
    expect(quit).toMatchObject({ atPrompt: true, commandExitCode: null, programExitCode: 0 });
    expect(quit.inputTo).toMatch(/^vim /);
    expect(readFileSync(join(r.cwd, 'notes.txt'), 'utf8')).toBe('one\n');
    expect(await sh.send('echo ok; false')).toMatchObject({ output: 'ok\n', commandExitCode: 1, inputTo: null });
  });

  it("a program's exit is its own: exit() in python3 is not a command's exit code", async () => {
    const r = await termRig();
    const sh = await r.shell();
    await sh.send('python3 -q');
    const left = await sh.send('exit(3)');
    expect(left).toMatchObject({ atPrompt: true, commandExitCode: null, programExitCode: 3 });
    expect(left.inputTo).toMatch(/python3/);
  });
});

/** A six-line function whose indentation an editor's auto-indent would change if it were typed. */
const AREA =
  'def area(w, h):\n    if w < 0:\n        raise ValueError("w")\n    if h < 0:\n        raise ValueError("h")\n    return w * h';

describe('paste as a paste', () => {
  it('vim with filetype indent keeps pasted Python exactly; typed key by key (paste: false) it is re-indented', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const put = async (file: string, paste: boolean): Promise<string> => {
      const send = (text: string, keys: string[] = []) =>
        r.terminals.send(r.me, sh.id, { text, keys, submit: false, paste, timeoutMs: 20_000 });
      await sh.send(`vim -N -u NONE --cmd 'filetype plugin indent on' ${file}`);
      await send('i');
      await send(AREA);
      await send('', ['Escape']);
      await sh.send(':wq');
      return readFileSync(join(r.cwd, file), 'utf8');
    };
    expect(await put('pasted.py', true)).toBe(`${AREA}\n`);
    expect(await put('typed.py', false)).not.toBe(`${AREA}\n`); // the auto-indent this guards against
  });
});

describe('input shapes', () => {
  it('keys alone with submit off, and a send that types nothing only waits', async () => {
    const r = await termRig();
    const sh = await r.shell();
    await sh.send('cat > typed.txt');
    const keys = await r.terminals.send(r.me, sh.id, {
      text: '',
      keys: ['x', 'Enter'],
      submit: false,
      timeoutMs: 20_000,
    });
    expect(keys.reason).toBe('stdin_read');
    const waited = await r.terminals.send(r.me, sh.id, { text: '', submit: false, timeoutMs: 20_000 });
    expect(waited).toMatchObject({ reason: 'stdin_read', commandExitCode: null, inputTo: null });
    await r.terminals.send(r.me, sh.id, { text: '', keys: ['C-d'], timeoutMs: 20_000 });
    expect(readFileSync(join(r.cwd, 'typed.txt'), 'utf8')).toBe('x\n');
    // At an idle prompt, a wait returns at once, and nothing ran.
    const idle = await r.terminals.send(r.me, sh.id, { text: '', submit: false, timeoutMs: 20_000 });
    expect(idle).toMatchObject({ reason: 'stdin_read', atPrompt: true, commandExitCode: null, output: '' });
  });

  it('a trailing newline is an Enter: it closes a block in python3', async () => {
    const r = await termRig();
    const sh = await r.shell();
    await sh.send('python3 -q');
    const block = await sh.send('for i in range(2):\n    print("row", i)\n');
    expect(block.output).toContain('row 0\nrow 1');
  });
});
