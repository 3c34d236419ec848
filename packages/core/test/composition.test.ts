import { Composition, DshError, isDshError, type Plugin } from '@dsh/core';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../test/support.js';

declare module '@dsh/core' {
  interface ServiceMap {
    testA: { id: number };
    testB: { a: { id: number }; id: number };
  }
}

/** Plugins A (provides testA) and B (requires testA, provides testB), recording lifecycle events. */
function fixture() {
  const log: string[] = [];
  let ids = 0;
  const a: Plugin = {
    name: 'a',
    setup(api) {
      ids += 1;
      log.push(`setup a (${api.phase})`);
      api.provide('testA', { id: ids });
    },
    dispose(reason) {
      log.push(`dispose a (${reason})`);
    },
  };
  const b: Plugin = {
    name: 'b',
    requires: ['testA'],
    setup(api) {
      ids += 1;
      log.push(`setup b (${api.phase})`);
      api.provide('testB', { a: api.ctx.get('testA'), id: ids });
    },
    dispose(reason) {
      log.push(`dispose b (${reason})`);
    },
  };
  return { a, b, log };
}

describe('DshError', () => {
  it('carries a stable code, data and cause', () => {
    const cause = new Error('inner');
    const e = new DshError('INVALID_SPEC', 'bad', { cause, data: { field: 'argv' } });
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('INVALID_SPEC');
    expect(e.data).toEqual({ field: 'argv' });
    expect(e.cause).toBe(cause);
    expect(e.toJSON()).toEqual({ code: 'INVALID_SPEC', message: 'bad', data: { field: 'argv' } });
    expect(isDshError(e, 'INVALID_SPEC')).toBe(true);
    expect(isDshError(e, 'OTHER')).toBe(false);
  });
});

describe('Composition', () => {
  it('mounts plugins in order and exposes their services on ctx', async () => {
    const { a, b, log } = fixture();
    const c = await Composition.create([a, b]);
    expect(log).toEqual(['setup a (mount)', 'setup b (mount)']);
    expect(c.ctx.testB?.a).toBe(c.ctx.testA);
    expect(c.ctx.get('testA').id).toBe(1);
    expect(c.ctx.has('testB')).toBe(true);
    expect(c.ctx.keys()).toEqual(['testA', 'testB']);
    expect(c.plugins()).toEqual([
      { name: 'a', mounted: true, provides: ['testA'] },
      { name: 'b', mounted: true, provides: ['testB'] },
    ]);
    await c.dispose();
  });

  it('reload(name) re-runs one plugin without disposing the services it stands on', async () => {
    const { a, b, log } = fixture();
    const c = await Composition.create([a, b]);
    const oldA = c.ctx.testA;
    const oldB = c.ctx.testB;
    await c.reload('b');
    expect(log.slice(2)).toEqual(['dispose b (reload)', 'setup b (reload)']);
    expect(c.ctx.testA).toBe(oldA);
    expect(c.ctx.testB).not.toBe(oldB);
    expect(c.ctx.testB?.a).toBe(oldA);
    await c.dispose();
  });

  it('teardown disposes in reverse mount order, once', async () => {
    const { a, b, log } = fixture();
    const c = await Composition.create([a, b]);
    await Promise.all([c.dispose(), c.dispose()]);
    await c.dispose();
    expect(log.slice(2)).toEqual(['dispose b (teardown)', 'dispose a (teardown)']);
    expect(c.ctx.has('testA')).toBe(false);
    expect(await codeOf(c.reload('a'))).toBe('DISPOSED');
  });

  it('refuses a plugin whose required service is missing, disposing what was mounted', async () => {
    const { a, b, log } = fixture();
    expect(await codeOf(Composition.create([b, a]))).toBe('SERVICE_NOT_FOUND');
    expect(log).toEqual([]);
    const failing: Plugin = {
      name: 'bad',
      setup() {
        throw new Error('boom');
      },
    };
    expect(await codeOf(Composition.create([a, failing]))).toBe('PLUGIN_SETUP_FAILED');
    expect(log).toEqual(['setup a (mount)', 'dispose a (teardown)']);
  });

  it('rejects duplicate plugin names, conflicting services and unknown names', async () => {
    const { a } = fixture();
    expect(await codeOf(Composition.create([a, a]))).toBe('PLUGIN_CONFLICT');
    const other: Plugin = { name: 'other', setup: (api) => api.provide('testA', { id: 99 }) };
    expect(await codeOf(Composition.create([a, other]))).toBe('SERVICE_CONFLICT');
    expect(await codeOf(Composition.create([{ name: '' } as unknown as Plugin]))).toBe('INVALID_ARGUMENT');
    const c = await Composition.create([a]);
    expect(await codeOf(c.reload('nope'))).toBe('PLUGIN_NOT_FOUND');
    expect(await codeOf(() => c.ctx.get('testB'))).toBe('SERVICE_NOT_FOUND');
    expect(c.ctx.testB).toBeUndefined();
    await c.dispose();
  });

  it('a reload whose setup fails leaves the plugin unmounted; a later reload can mount it again', async () => {
    let fail = false;
    const flaky: Plugin = {
      name: 'flaky',
      setup(api) {
        if (fail) throw new Error('down');
        api.provide('testA', { id: 1 });
      },
    };
    const c = await Composition.create([flaky]);
    fail = true;
    expect(await codeOf(c.reload('flaky'))).toBe('PLUGIN_SETUP_FAILED');
    expect(c.ctx.has('testA')).toBe(false);
    fail = false;
    await c.reload('flaky');
    expect(c.ctx.testA?.id).toBe(1);
    await c.dispose();
  });

  it('teardown disposes every plugin even when one fails, then reports TEARDOWN_FAILED', async () => {
    const { a, log } = fixture();
    const broken: Plugin = {
      name: 'broken',
      setup() {},
      dispose() {
        throw new Error('stuck');
      },
    };
    const c = await Composition.create([a, broken]);
    expect(await codeOf(c.dispose())).toBe('TEARDOWN_FAILED');
    expect(log).toContain('dispose a (teardown)');
  });
});

describe('reload without a gap', () => {
  it('the reloaded plugin’s services and tools stay visible until its new setup replaces them', async () => {
    let release!: () => void;
    let generation = 0;
    const slow: Plugin = {
      name: 'slow',
      async setup(api) {
        generation += 1;
        if (generation === 2) await new Promise<void>((r) => (release = r));
        api.provide('testA', { id: generation });
        api.registerTool({
          name: 'probe',
          description: 'x',
          inputSchema: {},
          call: async () => ({ text: '', isError: false, data: {} }),
        });
      },
    };
    const c = await Composition.create([slow]);
    const reloading = c.reload('slow');
    await new Promise((r) => setTimeout(r, 10));
    const seenDuringReload = c.ctx.has('testA') && c.tools.list().some((t) => t.name === 'probe');
    release();
    await reloading;
    expect(seenDuringReload).toBe(true);
    expect(c.ctx.testA?.id).toBe(2);
    await c.dispose();
  });

  it('keys and tools the new setup no longer provides are removed', async () => {
    let second = false;
    const shrinking: Plugin = {
      name: 'shrinking',
      setup(api) {
        api.provide('testA', { id: 1 });
        if (!second) api.provide('testB', { a: { id: 1 }, id: 2 });
      },
    };
    const c = await Composition.create([shrinking]);
    second = true;
    await c.reload('shrinking');
    expect(c.ctx.keys()).toEqual(['testA']);
    await c.dispose();
  });
});
