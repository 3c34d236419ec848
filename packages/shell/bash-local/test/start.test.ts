import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executor, isAlive, tempDir, waitFor } from './helpers.js';

describe('LocalBashExecutor.start', () => {
  it('incremental reads never repeat and join up to the whole output, stderr in sections', async () => {
    const ex = executor();
    const p = ex.start(
      ex.resolve({ command: 'for i in 1 2 3 4; do echo "out $i"; echo "err $i" >&2; sleep 0.1; done' }),
    );
    // A number once the program started: at once locally, after the far side answered in another world.
    await waitFor(() => typeof p.pid === 'number', 'the pid');
    const pieces: string[] = [];
    let settled = false;
    void p.done.then(() => {
      settled = true;
    });
    while (!settled) {
      const read = p.readOutput();
      if (read.text) pieces.push(read.text);
      expect(read.lossy).toBe(false);
      await new Promise((r) => setTimeout(r, 30));
    }
    const last = p.readOutput().text;
    if (last) pieces.push(last);
    const all = pieces.join('');
    const outLines = all.split('\n').filter((l) => l.startsWith('out '));
    const errLines = all.split('\n').filter((l) => l.startsWith('err '));
    expect(outLines).toEqual(['out 1', 'out 2', 'out 3', 'out 4']);
    expect(errLines).toEqual(['err 1', 'err 2', 'err 3', 'err 4']);
    // Each read closes its own stderr section: stderr lines only inside sections, stdout only outside.
    // (How many lines a read holds depends on when it ran.)
    const SECTION = /\[stderr\]\n([\s\S]*?)\[\/stderr\]\n/g;
    for (const piece of pieces) {
      expect(piece.replace(SECTION, '')).not.toMatch(/err |\[\/?stderr\]/);
      for (const section of piece.matchAll(SECTION)) expect(section[1]).toMatch(/^(err \d\n)+$/);
    }
    expect(p.readOutput().text).toBe('');
    expect(await p.done).toMatchObject({ exitCode: 0, killed: false, startError: null });
  });

  it('kill() is true while running, false once settled; done never rejects', async () => {
    const ex = executor();
    const p = ex.start(ex.resolve({ command: 'sleep 100 & echo $!; wait' }));
    const grandchild = await waitFor(() => Number.parseInt(p.readOutput().text, 10) || null, 'pid');
    const first = p.kill();
    expect(p.kill()).toBe(first);
    expect(await first).toBe(true);
    expect(await p.kill()).toBe(false);
    const outcome = await p.done;
    expect(outcome).toMatchObject({ killed: true, exitCode: null, signal: 'SIGTERM' });
    expect(isAlive(grandchild)).toBe(false);
  });

  it('has no executor timeout', async () => {
    const ex = executor({ timeoutMs: 100 });
    const p = ex.start(ex.resolve({ command: 'sleep 0.4; echo survived' }));
    expect((await p.done).exitCode).toBe(0);
    expect(p.readOutput().text).toBe('survived\n');
  });

  it('a start in a missing workdir settles as failed with the error on stderr, without rejecting', async () => {
    const ex = executor();
    const p = ex.start(ex.resolve({ command: 'true', workdir: join(tempDir(), 'missing') }));
    const outcome = await p.done;
    expect(outcome.startError?.code).toBe('CWD_NOT_FOUND');
    expect(outcome.exitCode).toBeNull();
    expect(outcome.stderr.text).toMatch(/CWD_NOT_FOUND/);
    const read = p.readOutput();
    expect(read.text).toMatch(/^\[stderr\]\nfailed to start \(CWD_NOT_FOUND\)/);
    expect(p.readOutput().text).toBe('');
    expect(await p.kill()).toBe(false);
  });

  it('reads past the tail are lossy and point at the spill file', async () => {
    const ex = executor({ maxOutputBytes: 1000 });
    const p = ex.start(ex.resolve({ command: "head -c 100000 /dev/zero | tr '\\0' b" }));
    await p.done;
    const read = p.readOutput();
    expect(read.lossy).toBe(true);
    expect(read.text).toBe('b'.repeat(1000));
    expect(read.spillPaths.stdout).toMatch(/dsh-/);
  });
});

describe('kill racing a natural end', () => {
  it('after bash exited by itself, kill() is false, the outcome is not "killed", and leftovers still end', async () => {
    const ex = executor({ graceMs: 2_000 });
    const p = ex.start(ex.resolve({ command: 'sleep 30 & echo $!; exit 0' }));
    const pid = p.pid as number;
    // Reaped, not only a zombie: the runtime reaps it and learns of the exit in one step.
    await waitFor(() => !existsSync(`/proc/${pid}`), 'bash exited and was reaped');
    let seen = '';
    const sleeper = await waitFor(() => {
      seen += p.readOutput().text;
      return Number.parseInt(seen, 10) || null;
    }, 'the sleeper pid');
    expect(isAlive(sleeper)).toBe(true);
    expect(await p.kill()).toBe(false);
    expect(await p.done).toMatchObject({ exitCode: 0, killed: false });
    expect(isAlive(sleeper)).toBe(false);
  });
});
