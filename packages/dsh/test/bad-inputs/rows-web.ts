/**
 * Bad inputs of what a person's page uses (dsh web): typed keys, watches, job watch cursors,
 * and the web server's own options.
 */
import { createOwner } from '@dsh/core';
import { serveWeb } from '@dsh/web';
import { type BadInput, thrown } from './observe.js';
import { withTerminal } from './rows-services.js';

export const WEB_ROWS: BadInput[] = [
  {
    layer: 'terminals',
    input: 'type with no keys',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.type(r.agent, id, '')),
  },
  {
    layer: 'terminals',
    input: 'type 20,000 characters in one call',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => withTerminal(r, (t, id) => t.type(r.agent, id, 'x'.repeat(20_000))),
  },
  {
    layer: 'terminals',
    input: "watch another owner's terminal",
    expect: 'DshError TERMINAL_NOT_FOUND',
    run: (r) => withTerminal(r, (t, id) => t.watch(createOwner('stranger'), id, () => undefined)),
  },
  {
    layer: 'jobs',
    input: 'watch an unknown job',
    expect: 'DshError JOB_NOT_FOUND',
    run: (r) => thrown(() => r.dsh.ctx.jobs?.watch(r.agent, 'job-00000000')),
  },
  {
    layer: 'web',
    input: 'serveWeb on port 70000',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => serveWeb({ host: r.dsh, port: 70_000 })),
  },
  {
    layer: 'web',
    input: 'serveWeb with a 5-character token',
    expect: 'DshError INVALID_ARGUMENT',
    run: (r) => thrown(() => serveWeb({ host: r.dsh, token: 'short' })),
  },
  {
    layer: 'web',
    input: 'serveWeb on an address not of this machine',
    expect: 'DshError WEB_LISTEN_FAILED',
    run: (r) => thrown(() => serveWeb({ host: r.dsh, hostname: '203.0.113.7' })),
  },
];
