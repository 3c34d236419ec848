/**
 * Programs that rewrite what is already on the screen (less, readline's Ctrl-R, `clear`, top),
 * and what a send says about the shell's command line, a killed shell, a late exit code, an
 * Escape, and a wide character at the margin.
 */
import { describe, expect, it } from 'vitest';
import { termRig, waitFor } from './helpers.js';

describe('redraws and what a send says', () => {
  it('less -X paging and Ctrl-R return whole rewritten lines', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const key = (keys: string[], text = '') => r.terminals.send(r.me, sh.id, { text, keys, timeoutMs: 20_000 });
    await sh.send('seq 1000 1100 | less -X');
    const paged = await key(['Space']);
    const lines = paged.output.split('\n').filter((l) => l !== '' && l !== ':');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).toMatch(/^1\d{3}$/);
    expect(await key(['q'])).toMatchObject({ commandExitCode: null, programExitCode: 0, atPrompt: true });
    await sh.send('echo marker-one-xyz');
    const search = await key(['C-r']);
    expect(search.output).toContain('(reverse-i-search)');
    expect(search.commandLine).toBe('unsubmitted');
    const found = await r.terminals.send(r.me, sh.id, { text: 'marker', submit: false, timeoutMs: 20_000 });
    expect(found.output).toContain("(reverse-i-search)`marker': echo marker-one-xyz");
    expect(found.commandLine).toBe('unsubmitted');
    expect((await key(['Enter'])).output).toContain('marker-one-xyz\n');
  });

  it('clear, and a program homing the cursor, keep their output and exit code', async () => {
    const r = await termRig();
    const sh = await r.shell();
    await sh.send('echo before');
    expect(await sh.send('clear; echo after-clear')).toMatchObject({
      output: 'after-clear\n',
      commandExitCode: 0,
    });
    expect(await sh.send('echo probe')).toMatchObject({ output: 'probe\n', commandExitCode: 0 });
    const homed = await sh.send('printf "\\033[H\\033[2JL1\\nL2\\nL3\\n"; read x');
    expect(homed.output).toBe('L1\nL2\nL3\n');
    expect(homed.commandLine).toBeNull(); // the read builtin waits; the command line is done
    expect(await sh.send('answer')).toMatchObject({ commandExitCode: 0 });
    await sh.send('printf "\\033c"; echo after-reset');
    expect(await sh.send('echo still')).toMatchObject({ output: 'still\n', commandExitCode: 0 });
  });

  it('an incomplete command line and text without Enter say so; an empty Enter runs no command', async () => {
    const r = await termRig();
    const sh = await r.shell();
    expect(await sh.send('echo "unterminated')).toMatchObject({ commandLine: 'incomplete', commandExitCode: null });
    expect((await sh.send('rest"')).output).toContain('unterminated\nrest\n');
    const typed = await r.terminals.send(r.me, sh.id, { text: 'ech', submit: false, timeoutMs: 20_000 });
    expect(typed).toMatchObject({ commandLine: 'unsubmitted', commandExitCode: null });
    expect(
      (await r.terminals.send(r.me, sh.id, { text: 'o typed', keys: ['Enter'], timeoutMs: 20_000 })).output,
    ).toContain('typed\n');
    await sh.send('false');
    expect(await sh.send('')).toMatchObject({ atPrompt: true, commandExitCode: null });
  });

  it('the prompt starts a row of its own: after output with no final newline, and after a killed program left an escape sequence open', async () => {
    const r = await termRig();
    const sh = await r.shell();
    // readline draws the line as if its prompt began at column 0: its redraw used to overwrite `abc`'s row
    // and the next send's output began with a garbled echo (`abecho afterter`).
    expect(await sh.send('printf abc')).toMatchObject({ output: 'abc', commandExitCode: 0 });
    expect(await sh.send('echo after')).toMatchObject({ output: 'after\n', commandExitCode: 0 });
    // The send returns at its prompt marker; the prompt itself is drawn just after it.
    await waitFor(
      () => /^abc\n\$ echo after\nafter\n\$$/m.test(r.terminals.screen(r.me, sh.id).text),
      'a clean screen',
    );
    // A program killed mid-write can leave a sequence open (the kernel also drops queued output at ^C):
    // then the echoed `^C` made ESC ^ (a private message) that swallowed bash's line break; a string
    // (OSC, DCS) swallowed it too.
    for (const cut of ['\\033', '\\033]0;title', '\\033P']) {
      const running = sh.send(`printf 'y${cut}'; sleep 100`, 60_000);
      await waitFor(() => r.terminals.list(r.me)[0]?.foreground?.startsWith('sleep'), 'sleep in the foreground');
      expect(await r.terminals.cancel(r.me, sh.id)).toMatchObject({ cancelled: true, commandExitCode: 130 });
      await running;
      expect(await sh.send('echo after')).toMatchObject({ output: 'after\n', commandExitCode: 0 });
    }
  });

  it('a command that finishes after its send timed out is reported with the next send', async () => {
    const r = await termRig();
    const sh = await r.shell();
    expect((await sh.send('sleep 0.3; (exit 4)', 100)).reason).toBe('timeout');
    // Back at the prompt, and its marker parsed (the prompt's `$ ` follows the marker in the output). Only the
    // screen is read: in a world across a channel the last foreground facts were taken while `sleep` ran, and
    // the send must not route its input by them (it was typed to "the program in the foreground").
    await waitFor(() => /\n\$ $/.test(`${r.terminals.screen(r.me, sh.id).text} `), 'the shell back at its prompt');
    expect(await sh.send('echo next')).toMatchObject({ output: 'next\n', previousExitCode: 4, commandExitCode: 0 });
    expect((await sh.send('echo again')).previousExitCode).toBeNull();
  });

  it("a command that ends at its send's deadline is told once: its output, then its exit code", async () => {
    const r = await termRig();
    const sh = await r.shell();
    // Deadlines just before, at and after the command's end: the output, the prompt marker and the
    // foreground facts (across a channel, a look behind) arrive in some order around the timeout.
    for (const t of [980, 995, 1000, 1004, 1008, 1012, 1020, 1040]) {
      const first = await sh.send('sleep 1; echo done; false', t);
      const results = [first];
      if (first.reason === 'timeout') {
        // Once its prompt is back (the screen only), a wait hands back what the send had not shown.
        await waitFor(() => /\n\$ $/.test(`${r.terminals.screen(r.me, sh.id).text} `), 'the prompt back');
        results.push(await r.terminals.send(r.me, sh.id, { text: '', keys: [], submit: false, timeoutMs: 5_000 }));
      }
      const told = results.map((x) => `${x.earlier}\n${x.output}`).join('\n');
      expect(told.match(/done/g), `deadline ${t}: ${JSON.stringify(results)}`).toHaveLength(1);
      expect(told, `deadline ${t}`).not.toMatch(/\$/); // no prompt in the text
      const codes = results.flatMap((x) => [x.commandExitCode, x.previousExitCode]).filter((c) => c !== null);
      expect(codes, `deadline ${t}: ${JSON.stringify(results)}`).toEqual([1]);
      expect(results.at(-1)).toMatchObject({ atPrompt: true, commandLine: null });
      expect(await sh.send('echo n')).toMatchObject({ output: 'n\n', commandExitCode: 0, previousExitCode: null });
    }
  });

  it("a job's end told at the prompt leaves the next command line whole", async () => {
    const r = await termRig();
    const sh = await r.shell();
    await sh.send('sleep 0.3 &');
    // The shell tells the end while readline reads (set -b): readline would then draw the next line
    // where it believes the cursor is (`»tr«true` on the screen, `trtrue` in the scrollback).
    await waitFor(() => /Done +sleep 0\.3\n?$/.test(r.terminals.screen(r.me, sh.id).text), 'the Done notice');
    const next = await sh.send('true');
    expect(next).toMatchObject({ output: '', commandExitCode: 0 });
    expect(next.earlier).toMatch(/^\[1\]\+ +Done +sleep 0\.3$/);
    await waitFor(() => /\n\$ true\n\$$/.test(r.terminals.screen(r.me, sh.id).text), 'the line drawn whole');
    expect(r.terminals.screen(r.me, sh.id).marked).not.toMatch(/»/);
    expect(r.terminals.scrollback(r.me, sh.id, { offset: 0, limit: 10_000 }).text).toMatch(/\n\$ true\n\$ $/);
  });

  it('a line typed ahead of a running command: the earlier exit code is told, then the line’s', async () => {
    const r = await termRig();
    const sh = await r.shell();
    expect((await sh.send('sleep 0.5; echo slept; (exit 4)', 100)).reason).toBe('timeout');
    const ahead = await sh.send('echo t');
    expect(ahead).toMatchObject({ previousExitCode: 4, commandExitCode: 0, atPrompt: true });
    expect(ahead.output).toMatch(/slept\n[\s\S]*\bt\n$/);
    expect(await sh.send('echo n')).toMatchObject({ output: 'n\n', previousExitCode: null, commandExitCode: 0 });
  });

  it('lines that leave a brace open are not closed for the shell: it asks for the rest, and the next send gives it', async () => {
    const r = await termRig();
    const sh = await r.shell();
    expect(await sh.send('g() {\n  echo from-g')).toMatchObject({ commandLine: 'incomplete', commandExitCode: null });
    // Only what was sent is on the command line (no brace group of dsh's around it).
    expect(r.terminals.screen(r.me, sh.id).text).toMatch(/^\$ g\(\) \{$/m);
    expect(await sh.send('}')).toMatchObject({ commandExitCode: 0, atPrompt: true });
    expect(await sh.send('g\ng')).toMatchObject({ output: 'from-g\nfrom-g\n', commandExitCode: 0 });
    // A line that is not bash is told as its own error, never one about a brace it does not have.
    const bad = await sh.send('function f(x) {\n  return x * 3');
    expect(bad.output).not.toMatch(/`\}'/);
  });

  it('a cancel right after a command ended on its own finds the shell idle at its prompt', async () => {
    const r = await termRig();
    const sh = await r.shell();
    expect((await sh.send('sleep 0.3', 100)).reason).toBe('timeout');
    // As above, only the screen is read: facts taken while `sleep` ran must not make the cancel interrupt the
    // shell's own prompt (it used to type ^C there and wait for the next one).
    await waitFor(() => /\n\$ $/.test(`${r.terminals.screen(r.me, sh.id).text} `), 'the shell back at its prompt');
    expect(await r.terminals.cancel(r.me, sh.id)).toBeNull();
    expect(await sh.send('echo next')).toMatchObject({ output: 'next\n', commandExitCode: 0 });
  });

  it('a killed shell says by which signal; Escape in vim settles after the mode changed', async () => {
    const r = await termRig();
    const sh = await r.shell();
    await sh.send('vim');
    const escaped = await r.terminals.send(r.me, sh.id, { text: 'ihello', keys: ['Escape'], timeoutMs: 20_000 });
    expect(escaped.screen).toBe(true);
    expect(escaped.output).not.toContain('-- INSERT --');
    expect(escaped.output.split('\n')[0]).toBe('hello');
    await sh.send(':q!');
    const cols = r.terminals.screen(r.me, sh.id).cols;
    const wide = await sh.send(`python3 -c "print('a' * ${cols - 1} + '日Z')"`);
    expect(wide.output).toBe(`${'a'.repeat(cols - 1)}日Z\n`);
    expect(await sh.send('kill -9 $$')).toMatchObject({ reason: 'session_exited', exitSignal: 'SIGKILL' });
    expect(r.terminals.list(r.me)[0]).toMatchObject({ state: 'exited', exitSignal: 'SIGKILL' });
  });
});
