import { createOwner, DshError } from '@dsh/core';
import {
  MAX_SESSIONS_PER_OWNER,
  type SendResult,
  type TerminalBackend,
  TerminalService,
  type TerminalSession,
} from '@dsh/terminal';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../test/support.js';

/**
 * A scripted session: the service's own rules (ids, owners, exclusivity, lifecycle) are tested
 * here; real PTYs are tested in terminal-bash.
 */
function result(r: Partial<SendResult>): SendResult {
  return {
    reason: 'stdin_read',
    output: '',
    screen: false,
    omitted: 0,
    earlier: '',
    earlierOmitted: 0,
    earlierOffset: null,
    atPrompt: true,
    commandLine: null,
    previousExitCode: null,
    exitSignal: null,
    state: 'running',
    commandExitCode: 0,
    cancelled: false,
    inputTo: null,
    programExitCode: null,
    programLine: null,
    linePrefix: null,
    knownPrompt: null,
    omittedGone: 0,
    outputOffset: null,
    cursor: null,
    ...r,
  };
}

function fakeSession(): TerminalSession & { closes: number; finish(r: Partial<SendResult>): void } {
  let pending: ((r: SendResult) => void) | null = null;
  let exited = false;
  const s = {
    opening: 'welcome',
    closes: 0,
    state: () => (exited ? 'exited' : 'running') as 'running' | 'exited',
    send: () =>
      new Promise<SendResult>((resolve) => {
        pending = resolve;
      }),
    cancel: async () => {
      if (!pending) return null;
      const settled = result({ cancelled: true });
      s.finish({ cancelled: true });
      return settled;
    },
    foreground: () => null,
    exitCode: () => null,
    exitSignal: () => null,
    screen: () => ({ text: '', rows: 24, cols: 80, alternate: false }),
    scrollback: () => ({ text: 'x', offset: 0, nextOffset: 1, startOffset: 0 }),
    close: async () => {
      s.closes += 1;
      exited = true;
      s.finish({ reason: 'session_exited', state: 'exited' });
    },
    finish(r: Partial<SendResult>) {
      const p = pending;
      pending = null;
      p?.(result(r));
    },
  };
  return s;
}

function backend(open: TerminalBackend['open'], type = 'fake'): TerminalBackend {
  return { type, open };
}

describe('TerminalService', () => {
  it('mints opaque ids, lists by owner, and passes the opening output', async () => {
    const svc = new TerminalService();
    svc.registerBackend(backend(async () => fakeSession()));
    const me = createOwner('me');
    const a = await svc.open(me, { type: 'fake', name: 'build' });
    const b = await svc.open(me, { type: 'fake' });
    expect(a.id).toMatch(/^term-[0-9a-f]{8}$/);
    expect(a.id).not.toBe(b.id);
    expect(a).toMatchObject({ name: 'build', opening: 'welcome' });
    expect(svc.list(me).map((t) => t.name)).toEqual(['build', null]);
    expect(await codeOf(svc.open(me, { type: 'fake', name: 'build' }))).toBe('TERMINAL_NAME_TAKEN');
    expect(await codeOf(svc.open(me, { type: 'nope' }))).toBe('TERMINAL_BACKEND_NOT_FOUND');
    expect(await codeOf(svc.open(me, { type: 'fake', name: 'has space' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(svc.open(me, { type: 'fake', cwd: 'relative' }))).toBe('INVALID_ARGUMENT');
    await svc.dispose();
  });

  it('publishes a session only after its setup succeeded; a setup failure leaves nothing behind', async () => {
    const svc = new TerminalService();
    const me = createOwner('me');
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    svc.registerBackend(
      backend(async () => {
        await gate;
        return fakeSession();
      }),
    );
    const opening = svc.open(me, { type: 'fake' });
    expect(svc.list(me)).toEqual([]); // not yet published
    release();
    await opening;
    expect(svc.list(me)).toHaveLength(1);
    svc.registerBackend(
      backend(async () => {
        throw new DshError('TERMINAL_CLEANUP_FAILED', 'half-started session could not be cleaned up');
      }, 'broken'),
    );
    expect(await codeOf(svc.open(me, { type: 'broken' }))).toBe('TERMINAL_CLEANUP_FAILED');
    expect(svc.list(me)).toHaveLength(1);
    await svc.dispose();
  });

  it('one send at a time; cancel is null when nothing runs, else the settled result; a foreign owner gets the unknown-id error', async () => {
    const svc = new TerminalService();
    const session = fakeSession();
    svc.registerBackend(backend(async () => session));
    const me = createOwner('me');
    const other = createOwner('me');
    const { id } = await svc.open(me, { type: 'fake' });
    expect(await svc.cancel(me, id)).toBeNull();
    const first = svc.send(me, id, { text: 'a', timeoutMs: 1000 });
    expect(await codeOf(svc.send(me, id, { text: 'b', timeoutMs: 1000 }))).toBe('TERMINAL_BUSY');
    expect(svc.list(me)[0]?.busy).toBe(true);
    expect(await svc.cancel(me, id)).toMatchObject({ cancelled: true });
    expect(await first).toMatchObject({ cancelled: true });
    expect(await svc.cancel(me, id)).toBeNull();
    expect(await codeOf(svc.cancel(me, id, { timeoutMs: -1 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(svc.send(me, id, { text: 'a', timeoutMs: 1000, keys: ['Nope'] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(svc.send(other, id, { text: 'x', timeoutMs: 1000 }))).toBe('TERMINAL_NOT_FOUND');
    expect(await codeOf(svc.send(me, id, { text: 'x', timeoutMs: 0 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(() => svc.scrollback(me, id, { limit: 0 }))).toBe('INVALID_ARGUMENT');
    await svc.dispose();
  });

  it('close: true once, false while in flight and after; reopen limits per owner', async () => {
    const svc = new TerminalService();
    const sessions: ReturnType<typeof fakeSession>[] = [];
    svc.registerBackend(
      backend(async () => {
        const s = fakeSession();
        sessions.push(s);
        return s;
      }),
    );
    const me = createOwner('me');
    const { id } = await svc.open(me, { type: 'fake', name: 'x' });
    const [a, b] = [svc.close(me, id), svc.close(me, id)];
    expect(await b).toBe(false);
    expect(await a).toBe(true);
    expect(await svc.close(me, id)).toBe(false);
    expect(await codeOf(svc.close(createOwner('me'), id))).toBe('TERMINAL_NOT_FOUND');
    expect(sessions[0]?.closes).toBe(1);
    await svc.open(me, { type: 'fake', name: 'x' }); // the name is free again
    for (let i = 1; i < MAX_SESSIONS_PER_OWNER; i++) await svc.open(me, { type: 'fake' });
    expect(await codeOf(svc.open(me, { type: 'fake' }))).toBe('TERMINAL_LIMIT');
    await svc.dispose();
    expect(sessions.every((s) => s.closes === 1)).toBe(true);
    expect(await codeOf(svc.open(me, { type: 'fake' }))).toBe('DISPOSED');
  });

  it('a replaced backend keeps existing sessions; unregistering another instance does nothing', async () => {
    const svc = new TerminalService();
    const first = backend(async () => fakeSession());
    svc.registerBackend(first);
    const me = createOwner('me');
    const { id } = await svc.open(me, { type: 'fake' });
    const second = backend(async () => fakeSession());
    svc.registerBackend(second);
    svc.unregisterBackend(first);
    expect(svc.backendTypes()).toEqual(['fake']);
    expect(svc.list(me).map((t) => t.id)).toEqual([id]);
    svc.unregisterBackend(second);
    expect(svc.backendTypes()).toEqual([]);
    expect(svc.list(me)).toHaveLength(1);
    await svc.dispose();
  });
});
