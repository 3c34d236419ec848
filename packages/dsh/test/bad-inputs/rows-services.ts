/**
 * Bad inputs of ctx.shell, ctx.jobs and ctx.terminals: empty and NUL commands, bad deadlines,
 * unknown, foreign and closed ids, bad keys, pages and names, limits.
 */
import { createOwner } from '@dsh/core';
import { type BadInput, thrown } from './observe.js';

const run = (cmd: Record<string, unknown>) => ({ command: 'true', cwd: '/tmp', timeoutMs: 1000, ...cmd }) as never;

export const SERVICE_ROWS: BadInput[] = [
  {
    layer: 'shell',
    input: 'an empty command',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ command: '' }))),
  },
  {
    layer: 'shell',
    input: 'a NUL byte in the command',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ command: 'echo \0' }))),
  },
  {
    layer: 'shell',
    input: 'timeoutMs negative',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ timeoutMs: -1 }))),
  },
  {
    layer: 'shell',
    input: 'timeoutMs NaN',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ timeoutMs: Number.NaN }))),
  },
  {
    layer: 'shell',
    input: 'timeoutMs 10^12',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ timeoutMs: 1e12 }))),
  },
  {
    layer: 'shell',
    input: 'a relative cwd',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ cwd: 'tmp' }))),
  },
  {
    layer: 'shell',
    input: 'a 200 KB command',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => shell(r).run(run({ command: `echo ${'x'.repeat(200_000)}` }))),
  },
  {
    layer: 'jobs',
    input: 'an unknown job id',
    expect: 'DshError JOB_NOT_FOUND',
    run: (r) => thrown(() => jobs(r).info(r.agent, 'job-00000000')),
  },
  {
    layer: 'jobs',
    input: "another agent's job id",
    expect: 'DshError JOB_NOT_FOUND',
    run: async (r) => {
      const started = await r.dsh.tools.call(r.agent, 'bash', { command: 'sleep 5', run_in_background: true });
      const id = String(started.data.job_id);
      const seen = await thrown(() => jobs(r).info(createOwner('someone-else'), id));
      await r.dsh.tools.call(r.agent, 'job_kill', { job_id: id });
      return seen;
    },
  },
  {
    layer: 'terminals',
    input: 'send to an unknown id',
    expect: 'DshError TERMINAL_NOT_FOUND',
    run: (r) => thrown(() => r.dsh.ctx.terminals?.send(r.agent, 'term-00000000', { text: 'ls', timeoutMs: 1000 })),
  },
  {
    layer: 'terminals',
    input: "send to another agent's terminal",
    expect: 'DshError TERMINAL_NOT_FOUND',
    run: async (r) => {
      const t = r.dsh.ctx.terminals;
      const { id } = await (t as NonNullable<typeof t>).open(r.agent, { type: 'shell' });
      const seen = await thrown(() => t?.send(createOwner('someone-else'), id, { text: 'ls', timeoutMs: 1000 }));
      await t?.close(r.agent, id);
      return seen;
    },
  },
  {
    layer: 'terminals',
    input: 'send after close; close twice',
    expect: 'DshError TERMINAL_NOT_FOUND; false',
    run: async (r) => {
      const t = r.dsh.ctx.terminals as NonNullable<typeof r.dsh.ctx.terminals>;
      const { id } = await t.open(r.agent, { type: 'shell' });
      await t.close(r.agent, id);
      return `${await thrown(() => t.send(r.agent, id, { text: 'ls', timeoutMs: 1000 }))}; ${await t.close(r.agent, id)}`;
    },
  },
  {
    layer: 'terminals',
    input: 'send with timeoutMs 0',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.send(r.agent, id, { text: 'ls', timeoutMs: 0 })),
  },
  {
    layer: 'terminals',
    input: 'an unknown key name',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.send(r.agent, id, { text: '', keys: ['Hyper-q'], timeoutMs: 1000 })),
  },
  {
    layer: 'terminals',
    input: '300 keys in one send',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) =>
      withTerminal(r, (t, id) => t.send(r.agent, id, { text: '', keys: Array(300).fill('Up'), timeoutMs: 1000 })),
  },
  {
    layer: 'terminals',
    input: 'nothing to send (no text, keys: [])',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.send(r.agent, id, { text: '', keys: [], timeoutMs: 1000 })),
  },
  {
    layer: 'terminals',
    input: 'a scrollback page of limit 0',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.scrollback(r.agent, id, { limit: 0 })),
  },
  {
    layer: 'terminals',
    input: 'a name with a space',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => r.dsh.ctx.terminals?.open(r.agent, { type: 'shell', name: 'my term' })),
  },
  {
    layer: 'terminals',
    input: 'a relative cwd',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => r.dsh.ctx.terminals?.open(r.agent, { type: 'shell', cwd: 'tmp' })),
  },
  {
    layer: 'terminals',
    input: 'an unknown backend type',
    expect: 'DshError TERMINAL_BACKEND_NOT_FOUND',
    run: (r) => thrown(() => r.dsh.ctx.terminals?.open(r.agent, { type: 'zsh-please' })),
  },
  {
    layer: 'terminals',
    input: 'a 17th running terminal',
    expect: 'DshError TERMINAL_LIMIT',
    run: async (r) => {
      const t = r.dsh.ctx.terminals as NonNullable<typeof r.dsh.ctx.terminals>;
      const owner = createOwner('many');
      for (let i = 0; i < 16; i++) await t.open(owner, { type: 'shell' });
      const seen = await thrown(() => t.open(owner, { type: 'shell' }));
      await t.disposeOwner(owner);
      return seen;
    },
  },
  {
    layer: 'terminals',
    input: 'cancel with a negative wait',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.cancel(r.agent, id, { timeoutMs: -5 })),
  },
];

type Terminals = NonNullable<import('dsh').Dsh['ctx']['terminals']>;
type Rig = Parameters<BadInput['run']>[0];
const shell = (r: Rig) => r.dsh.ctx.shell as NonNullable<Rig['dsh']['ctx']['shell']>;
const jobs = (r: Rig) => r.dsh.ctx.jobs as NonNullable<Rig['dsh']['ctx']['jobs']>;

/** Opens a terminal, observes `fn` on it, closes it. */
export async function withTerminal(
  r: Parameters<BadInput['run']>[0],
  fn: (t: Terminals, id: string) => unknown,
): Promise<string> {
  const t = r.dsh.ctx.terminals as Terminals;
  const { id } = await t.open(r.agent, { type: 'shell' });
  try {
    return await thrown(() => fn(t, id));
  } finally {
    await t.close(r.agent, id);
  }
}
