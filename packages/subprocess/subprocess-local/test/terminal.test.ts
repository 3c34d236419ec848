import type { SubprocessTerminalHandle, TerminalSpawnSpec } from '@dsh/subprocess';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../test/support.js';
import { isAlive, runtime, tempDir, waitFor } from './helpers.js';

function termSpec(over: Partial<TerminalSpawnSpec> = {}): TerminalSpawnSpec {
  return {
    argv: ['bash', '--norc', '--noprofile', '-i'],
    cwd: tempDir(),
    env: { PS1: '$ ' },
    cols: 80,
    rows: 24,
    graceMs: 500,
    ...over,
  };
}

function collect(t: SubprocessTerminalHandle): { text(): string } {
  let text = '';
  t.output.on('data', (d: string) => {
    text += d;
  });
  return { text: () => text };
}

describe('spawnTerminal', () => {
  it('gives UTF-8 text that ends after the top process exits, with its exit facts', async () => {
    const t = await runtime().spawnTerminal(termSpec({ argv: ['sh', '-c', 'printf "héllo 🙂\\n"; exit 4'] }));
    const out = collect(t);
    expect(await t.done).toEqual({ exitCode: 4, signal: null });
    await waitFor(() => t.output.readableEnded, 'output end');
    expect(out.text()).toBe('héllo 🙂\r\n');
  });

  it('reports the foreground group and the stdin wait of the foreground process', async () => {
    const t = await runtime().spawnTerminal(termSpec());
    collect(t);
    const idle = await waitFor(() => {
      const f = t.inspectForeground();
      return f.stdinWait === true ? f : null;
    }, 'shell at its prompt');
    expect(idle.foregroundPgid).toBe(idle.shellPgid);
    t.write('sleep 30\r');
    const busy = await waitFor(() => {
      const f = t.inspectForeground();
      return f.foregroundPgid !== f.shellPgid && f.command?.startsWith('sleep') ? f : null;
    }, 'sleep in the foreground');
    expect(busy.stdinWait).toBe(false);
    t.write('\x03');
    t.write(`python3 -c "input()"\r`);
    const reading = await waitFor(() => {
      const f = t.inspectForeground();
      return f.command?.includes('python') && f.stdinWait === true ? f : null;
    }, 'python blocked reading the terminal');
    expect(reading.foregroundPgid).not.toBe(reading.shellPgid);
    await t.terminate();
  });

  it('signalForeground reaches only the verified foreground group', async () => {
    const t = await runtime().spawnTerminal(termSpec());
    const out = collect(t);
    await waitFor(() => t.inspectForeground().stdinWait === true, 'prompt');
    t.write('sleep 30\r');
    const sleeping = await waitFor(() => {
      const f = t.inspectForeground();
      return f.command?.startsWith('sleep') ? f : null;
    }, 'sleep running');
    expect(t.signalForeground('SIGINT')).toBe(true);
    await waitFor(() => {
      const f = t.inspectForeground();
      return f.foregroundPgid === f.shellPgid && f.stdinWait === true;
    }, 'the prompt back after the interrupt');
    expect(isAlive(sleeping.foregroundPgid as number)).toBe(false);
    t.write('echo "status=$?"\r');
    await waitFor(() => out.text().includes('status=130'), 'status of the interrupted sleep');
    expect(() => t.signalForeground('SIGSEGV')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    t.write('exit\r');
    await t.done;
    expect(t.signalForeground('SIGINT')).toBe(false);
  });

  it('terminate() ends every session member, background jobs included', async () => {
    const t = await runtime().spawnTerminal(termSpec());
    const out = collect(t);
    t.write('sleep 100 & echo "bg=$!"\r');
    const bg = Number((await waitFor(() => /bg=(\d+)/.exec(out.text()), 'bg pid'))[1]);
    expect(isAlive(bg)).toBe(true);
    await t.terminate();
    expect(isAlive(t.pid)).toBe(false);
    expect(isAlive(bg)).toBe(false);
    await t.terminate();
  });

  it('dispose() ends live terminals', async () => {
    const rt = runtime();
    const t = await rt.spawnTerminal(termSpec());
    await rt.dispose();
    expect(isAlive(t.pid)).toBe(false);
    await expect(t.done).resolves.toBeDefined();
  });

  it('bad specs and start failures are typed; an aborted signal cancels the allocation', async () => {
    const rt = runtime();
    expect(() => rt.spawnTerminal(termSpec({ cols: 0 }))).toThrow(expect.objectContaining({ code: 'INVALID_SPEC' }));
    expect(await codeOf(rt.spawnTerminal(termSpec({ argv: ['dsh-no-such-shell'] })))).toBe('EXECUTABLE_NOT_FOUND');
    expect(await codeOf(rt.spawnTerminal(termSpec({ cwd: '/nonexistent-dir' })))).toBe('CWD_NOT_FOUND');
    expect(await codeOf(rt.spawnTerminal(termSpec({ signal: AbortSignal.abort() })))).toBe('ABORTED');
    expect(rt.trackedCount).toBe(0);
  });

  it('resize checks its input and applies it', async () => {
    const t = await runtime().spawnTerminal(termSpec());
    const out = collect(t);
    expect(() => t.resize(0, 10)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    t.resize(100, 30);
    t.write('stty size\r');
    await waitFor(() => out.text().includes('30 100'), 'new size');
    await t.terminate();
  });
});
