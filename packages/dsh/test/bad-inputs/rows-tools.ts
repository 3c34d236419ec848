/**
 * Bad inputs of the model tools and of compose(): bad arguments are isError results with a
 * code, never a thrown call; config typos are refused with the nearest key.
 */
import { compose } from 'dsh';
import { type BadInput, thrown, toolResult } from './observe.js';

const call = (r: Parameters<BadInput['run']>[0], tool: string, args: unknown) =>
  r.dsh.tools.call(r.agent, tool, args).then((res) => toolResult(res, (x) => `ok: ${x.text.split('\n')[0]}`));

export const TOOL_ROWS: BadInput[] = [
  {
    layer: 'tools',
    input: 'bash with an empty command',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'bash', { command: '' }),
  },
  {
    layer: 'tools',
    input: 'bash with arguments that are a string',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'bash', 'ls -l'),
  },
  {
    layer: 'tools',
    input: 'bash with a NUL byte',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'bash', { command: 'echo \0' }),
  },
  {
    layer: 'tools',
    input: 'bash with timeout_ms -1',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'bash', { command: 'true', timeout_ms: -1 }),
  },
  {
    layer: 'tools',
    input: 'bash with timeout_ms 10^9 (clamped to the 600 s maximum, and said so)',
    expect:
      'ok: [note: timeout_ms 1000000000 is over the limit: the command has 600000 ms; for longer work use run_in_background]',
    run: (r) => call(r, 'bash', { command: 'true', timeout_ms: 1e9 }),
  },
  {
    layer: 'tools',
    input: 'bash with an unknown argument',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'bash', { command: 'true', colour: 'red' }),
  },
  {
    layer: 'tools',
    input: 'bash with a missing workdir',
    expect: 'isError WORKDIR_NOT_FOUND',
    run: (r) => call(r, 'bash', { command: 'pwd', workdir: 'no/such/dir' }),
  },
  {
    layer: 'tools',
    input: 'bash with workdir ../.. (unconfined)',
    expect: 'ok: /',
    run: (r) => call(r, 'bash', { command: 'pwd', workdir: '../../../../../../..' }),
  },
  {
    layer: 'tools',
    input: 'bash with a 200 KB command',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'bash', { command: `echo ${'x'.repeat(200_000)}` }),
  },
  {
    layer: 'tools',
    input: 'an unknown tool',
    expect: 'isError UNKNOWN_TOOL',
    run: (r) => call(r, 'bash2', { command: 'ls' }),
  },
  {
    layer: 'tools',
    input: 'job_output of an unknown job',
    expect: 'isError JOB_NOT_FOUND',
    run: (r) => call(r, 'job_output', { job_id: 'job-00000000' }),
  },
  {
    layer: 'tools',
    input: 'job_kill without job_id',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'job_kill', {}),
  },
  {
    layer: 'tools',
    input: 'terminal_send to an unknown terminal',
    expect: 'isError TERMINAL_NOT_FOUND',
    run: (r) => call(r, 'terminal_send', { terminal_id: 'term-00000000', input: 'ls' }),
  },
  {
    layer: 'tools',
    input: 'terminal_read with limit 0',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'terminal_read', { terminal_id: 'term-00000000', limit: 0 }),
  },
  {
    layer: 'tools',
    input: 'terminal_read with a negative offset',
    expect: 'isError INVALID_ARGUMENT',
    run: (r) => call(r, 'terminal_read', { terminal_id: 'term-00000000', offset: -1 }),
  },
  {
    layer: 'tools',
    input: 'terminal_open with a missing workdir',
    expect: 'isError WORKDIR_NOT_FOUND',
    run: (r) => call(r, 'terminal_open', { workdir: 'no/such/dir' }),
  },
  {
    layer: 'tools',
    input: 'terminal_close of a malformed id',
    expect: 'isError TERMINAL_NOT_FOUND',
    run: (r) => call(r, 'terminal_close', { terminal_id: 'not an id' }),
  },
  {
    layer: 'config',
    input: 'a typo in a top-level key (sandox)',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => compose({ config: { workspace: r.dir, sandox: {} } as never })),
  },
  {
    layer: 'config',
    input: 'sandbox.mode "bogus"',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => compose({ config: { workspace: r.dir, sandbox: { mode: 'bogus' as never } } })),
  },
  {
    layer: 'config',
    input: 'a workspace that does not exist (relative: resolved against the current directory)',
    expect: 'DshError INVALID_ARGUMENT',
    run: () => thrown(() => compose({ config: { workspace: 'no-such-workspace-dir' } })),
  },
  {
    layer: 'config',
    input: 'preset "nope"',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => compose({ preset: 'nope' as never, config: { workspace: r.dir } })),
  },
  {
    layer: 'config',
    input: 'a negative shell timeout',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => compose({ config: { workspace: r.dir, shell: { defaultTimeoutMs: -1 } } as never })),
  },
  {
    layer: 'config',
    input: 'dispose twice; a call after dispose',
    expect: 'no error; DshError DISPOSED',
    run: async (r) => {
      const dsh = await compose({
        preset: 'base',
        config: { workspace: r.dir, sandbox: { mode: 'danger-full-access' } },
      });
      await dsh.dispose();
      const twice = await thrown(() => dsh.dispose());
      return `${twice}; ${await thrown(() => dsh.tools.call(dsh.createAgent('late'), 'bash', { command: 'true' }))}`;
    },
  },
];
