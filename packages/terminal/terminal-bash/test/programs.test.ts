/**
 * Real programs in a terminal behind the emulator: vim, a `\r` progress bar, the python REPL,
 * less, keys, cancel at any time, typed-ahead input, exact counts and between-send output.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive, termRig, waitFor } from './helpers.js';

/** The characters `seq 1 n` prints. */
function seqChars(n: number): number {
  let total = 0;
  for (let i = 1; i <= n; i++) total += String(i).length + 1;
  return total;
}

describe('real programs behind the emulator', () => {
  it('the foreground command reads as it would be typed: arguments with blanks quoted', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const running = sh.send(`sh -c 'sleep 30; :' "it's"`, 60_000);
    const want = `sh -c 'sleep 30; :' 'it'\\''s'`;
    await waitFor(() => r.terminals.list(r.me)[0]?.foreground?.startsWith('sh '), 'sh in the foreground');
    expect(r.terminals.list(r.me)[0]?.foreground).toBe(want);
    await r.terminals.cancel(r.me, sh.id);
    await running;
  });

  it('vim: edit, :wq, then echo gets its own output and exit code; the screen shows the file', async () => {
    const r = await termRig();
    const sh = await r.shell();
    writeFileSync(join(r.cwd, 'notes.txt'), 'first line\nsecond line\n');
    const opened = await sh.send('vim notes.txt');
    expect(opened).toMatchObject({ reason: 'stdin_read', screen: true, commandExitCode: null });
    expect(opened.output.split('\n').slice(0, 2)).toEqual(['first line', 'second line']);
    const snap = r.terminals.screen(r.me, sh.id);
    expect(snap.alternate).toBe(true);
    expect(snap.text.split('\n').length).toBeLessThanOrEqual(snap.rows);
    expect(snap.text.split('\n').every((row) => row.length <= snap.cols)).toBe(true);
    expect(snap.text).not.toMatch(/ +$/m); // trailing blanks trimmed
    const typed = await r.terminals.send(r.me, sh.id, { text: 'ihello ', submit: false, timeoutMs: 20_000 });
    expect(typed).toMatchObject({ reason: 'stdin_read', screen: true });
    expect(typed.output.split('\n')[0]).toBe('hello first line');
    expect(await r.terminals.send(r.me, sh.id, { text: '', keys: ['Escape'], timeoutMs: 20_000 })).toMatchObject({
      screen: true,
    });
    const saved = await sh.send(':wq');
    expect(saved).toMatchObject({ reason: 'stdin_read', screen: false, commandExitCode: null, programExitCode: 0 });
    const next = await sh.send('echo ok1; (exit 3)');
    expect(next).toMatchObject({ reason: 'stdin_read', output: 'ok1\n', commandExitCode: 3 });
    expect(readFileSync(join(r.cwd, 'notes.txt'), 'utf8')).toBe('hello first line\nsecond line\n');
  });

  it('a \\r progress bar reads as its final state; a readline redraw does not repeat the command', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const bar = await sh.send(`for i in $(seq 5 5 100); do printf '\\r[%3d%%]' "$i"; sleep 0.01; done; echo`);
    expect(bar).toMatchObject({ output: '[100%]\n', commandExitCode: 0 });
    await sh.send('echo redrawn');
    const page = r.terminals.scrollback(r.me, sh.id, { limit: 10_000 }).text;
    expect(page.match(/echo redrawn/g)).toHaveLength(1);
  });

  it('python REPL: a multi-line def, then cancel after a send that timed out gives KeyboardInterrupt and >>>', async () => {
    const r = await termRig({ env: { PYTHON_BASIC_REPL: '1' } });
    const sh = await r.shell();
    expect((await sh.send('python3 -q')).output).toContain('>>>');
    await sh.send('def double(x):\n    return x * 2\n\n'); // the blank line ends the block, as at a real REPL
    expect((await sh.send('double(21)')).output).toContain('42');
    const slow = await sh.send('import time; time.sleep(60)', 300);
    expect(slow.reason).toBe('timeout');
    const cancelled = await r.terminals.cancel(r.me, sh.id);
    expect(cancelled).toMatchObject({ reason: 'stdin_read', cancelled: true, commandExitCode: null });
    expect(cancelled?.output).toContain('KeyboardInterrupt');
    expect(cancelled?.output).toMatch(/>>> ?$/);
    // The REPL is still there: a cancel at its idle >>> interrupts it again, and it answers.
    expect((await r.terminals.cancel(r.me, sh.id))?.output).toContain('KeyboardInterrupt');
    expect((await sh.send('double(4)')).output).toContain('8');
    expect(await sh.send('exit()')).toMatchObject({ commandExitCode: null, programExitCode: 0, atPrompt: true });
    expect(await r.terminals.cancel(r.me, sh.id)).toBeNull();
  });

  it('cancel discards typed-ahead input and reports the interrupted command', async () => {
    const r = await termRig();
    const sh = await r.shell();
    expect((await sh.send('sleep 60', 300)).reason).toBe('timeout');
    expect((await sh.send(`touch ${r.cwd}/typed-ahead-ran`, 300)).reason).toBe('timeout');
    const cancelled = await r.terminals.cancel(r.me, sh.id);
    expect(cancelled).toMatchObject({ reason: 'stdin_read', cancelled: true, commandExitCode: 130 });
    expect(await sh.send('echo after')).toMatchObject({ output: 'after\n', commandExitCode: 0 });
    expect(existsSync(join(r.cwd, 'typed-ahead-ran'))).toBe(false);
  });

  it('keys: C-c interrupts, Up recalls, a bare character quits less without an empty command', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const key = (keys: string[], text = '') => r.terminals.send(r.me, sh.id, { text, keys, timeoutMs: 20_000 });
    expect(await sh.send('cat')).toMatchObject({ reason: 'stdin_read', commandExitCode: null });
    expect(await key(['C-c'])).toMatchObject({ reason: 'stdin_read', commandExitCode: null, programExitCode: 130 });
    await sh.send('echo recalled-$((6 * 7))');
    expect(await key(['Up', 'Enter'])).toMatchObject({ output: 'recalled-42\n', commandExitCode: 0 });
    writeFileSync(join(r.cwd, 'long.txt'), Array.from({ length: 200 }, (_, i) => `row ${i}`).join('\n'));
    const paged = await sh.send('less long.txt');
    expect(paged).toMatchObject({ reason: 'stdin_read', screen: true });
    expect(paged.output.split('\n')[0]).toBe('row 0');
    expect(await key(['q'])).toMatchObject({ reason: 'stdin_read', screen: false, programExitCode: 0 });
    await sh.send('echo after-less');
    const page = r.terminals.scrollback(r.me, sh.id, { limit: 2_000 }).text;
    expect(page).toMatch(/\$ less long\.txt\n\$ echo after-less\nafter-less\n/);
  });

  it('seq 1 200000: what is shown plus what is omitted is exactly what was printed', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const big = await sh.send('seq 1 200000', 60_000);
    expect(big.output.endsWith('199999\n200000\n')).toBe(true);
    expect(big.omitted).toBeGreaterThan(0);
    expect(big.omitted + big.output.length).toBe(seqChars(200_000));
    const small = await sh.send('seq 1 3');
    expect(small).toMatchObject({ output: '1\n2\n3\n', omitted: 0 });
  });

  it('output printed between sends is delivered at the start of the next send, once', async () => {
    const r = await termRig();
    const sh = await r.shell();
    const started = await sh.send('(sleep 0.2; echo background-$((6 * 7))) &');
    const pid = Number(/\[1\] (\d+)/.exec(started.output)?.[1]);
    expect(pid).toBeGreaterThan(1);
    await waitFor(() => !isAlive(pid), 'the background job to end');
    // The job's end is told as it ends (set -b), so it is printed before this send, and is in its
    // `earlier`, never in its output (issue 20 k: it came one send late).
    await waitFor(() => r.terminals.screen(r.me, sh.id).text.match(/\[1\]\+ +Done/), 'the job notice');
    const next = await sh.send('echo now');
    expect(next.earlier).toMatch(/^background-42\n\[1\]\+ +Done/); // printed while no send waited
    expect(next.output).toBe('now\n');
    expect(await sh.send('echo last')).toMatchObject({ earlier: '', output: 'last\n' });
  });

  it('what the shell prints after its prompt marker, before it reads the next line, reaches the next send', async () => {
    const sh = await (await termRig()).shell();
    // The prompt hook marks the prompt, then the shell keeps busy itself (no child: it stays the
    // foreground, so the send settles at the marker) and prints after the next send began.
    await sh.send(`PROMPT_COMMAND='__dsh_prompt; for i in {1..100000}; do :; done; echo late-$((6 * 7))'`);
    const next = await sh.send('PROMPT_COMMAND=__dsh_prompt; echo restored');
    expect(next).toMatchObject({ earlier: 'late-42', output: 'restored\n' });
    expect(await sh.send('echo last')).toMatchObject({ earlier: '', output: 'last\n' });
  });

  it('a prompt hook slower than the send: its input still runs; an unsubmitted line does not repeat earlier output', async () => {
    const r = await termRig();
    const sh = await r.shell();
    // About a second of work in the hook, after the marker, with the shell as the foreground.
    await sh.send(`PROMPT_COMMAND='__dsh_prompt; for i in {1..1000000}; do :; done; echo late-$((6 * 7))'`);
    for (const [name, timeoutMs] of [
      ['ran-anyway', 300],
      ['ran-tiny', 1], // its deadline comes before the wait ends
    ] as const) {
      const timedOut = await sh.send(`touch ${name}`, timeoutMs);
      expect(timedOut.reason).toBe('timeout');
      await waitFor(
        () => existsSync(join(r.cwd, name)),
        `the input of the send that timed out (${timeoutMs} ms) to run`,
      );
      expect((await sh.send('true')).atPrompt).toBe(true); // at the prompt again: the next send waits for the editor
    }
    await sh.send('PROMPT_COMMAND=__dsh_prompt');
    await sh.send(`PROMPT_COMMAND='__dsh_prompt; for i in {1..100000}; do :; done; echo late-$((6 * 7))'`);
    const partial = await r.terminals.send(r.me, sh.id, { text: 'echo partial', submit: false, timeoutMs: 20_000 });
    expect(partial.commandLine).toBe('unsubmitted');
    expect(partial.earlier).toBe('late-42');
    expect(partial.output).not.toContain('late-42');
    const done = await sh.send('; PROMPT_COMMAND=__dsh_prompt; echo restored'); // completes the line
    expect(done.earlier).toBe('');
    expect(done.output.endsWith('partial\nrestored\n')).toBe(true);
  });

  it('input typed ahead into a busy prompt hook is not reported as output printed before the send', async () => {
    const r = await termRig();
    const sh = await r.shell();
    // The hook spins (no child: the shell stays the foreground) until the test lets it go.
    await sh.send(`PROMPT_COMMAND='__dsh_prompt; while [ ! -e go ]; do :; done; rm -f go; echo late-$((6 * 7))'`);
    const send = sh.send('echo typed-ahead');
    // Past the wait for the line editor the input is typed ahead, and the terminal echoes it.
    await waitFor(
      () => r.terminals.screen(r.me, sh.id).text.includes('typed-ahead'),
      'the echo of the typed-ahead input',
    );
    writeFileSync(join(r.cwd, 'go'), '');
    const result = await send;
    expect(result.output).toBe('typed-ahead\n');
    expect(result.earlier).not.toContain('typed-ahead');
    writeFileSync(join(r.cwd, 'go'), ''); // its own prompt's hook
    expect(await sh.send('PROMPT_COMMAND=__dsh_prompt; echo restored')).toMatchObject({ output: 'restored\n' });
  });

  it('a command a prompt hook runs is part of the prompt: a send meanwhile is a command line, not input to it', async () => {
    const r = await termRig();
    const sh = await r.shell();
    // While the file `hold` exists, each prompt's hook runs a child after the marker: it holds the terminal.
    const hook = `__dsh_prompt; [ -e hold ] && sh -c 'touch held; while [ -e hold ]; do sleep 0.02; done; rm -f held'`;
    expect(await sh.send(`PROMPT_COMMAND="${hook}"`)).toMatchObject({ commandExitCode: 0 });
    writeFileSync(join(r.cwd, 'hold'), '');
    await sh.send('true', 3_000);
    await waitFor(() => existsSync(join(r.cwd, 'held')), "the prompt hook's child holding the terminal");
    const send = sh.send('echo hi');
    // Typed ahead (the terminal echoes it) once the send decided where its input goes; then the hook may end.
    await waitFor(() => r.terminals.screen(r.me, sh.id).text.includes('echo hi'), 'the echo of the typed-ahead input');
    rmSync(join(r.cwd, 'hold'));
    expect(await send).toMatchObject({ output: 'hi\n', commandExitCode: 0, inputTo: null });
    expect(await sh.send('PROMPT_COMMAND=__dsh_prompt; echo restored')).toMatchObject({ output: 'restored\n' });
  });

  it('exited terminals do not count toward the limit and keep their exit code until closed', async () => {
    const r = await termRig();
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const sh = await r.shell();
      expect(await sh.send(`exit ${i + 1}`)).toMatchObject({ reason: 'session_exited', commandExitCode: i + 1 });
      ids.push(sh.id);
    }
    const fresh = await r.shell();
    expect((await fresh.send('echo open')).output).toBe('open\n');
    const listed = r.terminals.list(r.me);
    expect(listed.filter((t) => t.state === 'exited').map((t) => t.exitCode)).toEqual(ids.map((_, i) => i + 1));
    for (let i = 0; i < 2; i++) {
      expect(await r.terminals.send(r.me, ids[4] as string, { text: 'echo x', timeoutMs: 1_000 })).toMatchObject({
        reason: 'session_exited',
        commandExitCode: 5,
        state: 'exited',
      });
    }
    expect(await r.terminals.cancel(r.me, ids[4] as string)).toMatchObject({ commandExitCode: 5 });
  });
});
