/**
 * Protocol edges of `dsh mcp` (issue 21, b): an invalid cursor is -32602; a request of an invalid
 * shape is answered -32600 (id null when the id itself is invalid) instead of left hanging; a
 * duplicate pending id is refused while the first goes on; the last line at EOF is answered.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from './helpers.js';
import { initialized } from './raw.js';

describe('dsh mcp protocol edges', () => {
  it('answers every malformed request, refuses a bad cursor and a duplicate pending id', async () => {
    const raw = await initialized();
    raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'nope' } });
    expect(await raw.response(1)).toMatchObject({ error: { code: -32602 } });
    raw.send({ jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' });
    raw.send({ jsonrpc: '2.0', id: 2, method: 7 });
    raw.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: null });
    raw.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: 'x' });
    for (const id of [2, 3, 4]) expect(await raw.response(id)).toMatchObject({ error: { code: -32600 } });
    await waitFor(
      () => raw.lines.find((l) => l.id === null && (l.error as { code?: number })?.code === -32600),
      'the answer to the object id',
    );
    // A duplicate of a pending id: refused, and the first still answers once.
    const slow = { name: 'bash', arguments: { command: 'sleep 1; echo first' } };
    raw.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: slow });
    raw.send({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'bash', arguments: { command: 'echo second' } },
    });
    await waitFor(() => raw.lines.filter((l) => l.id === 5).length >= 2, 'both answers to id 5');
    const answers = raw.lines.filter((l) => l.id === 5);
    expect(answers[0]).toMatchObject({ error: { code: -32600 } });
    expect(JSON.stringify(answers[1])).toContain('first');
    expect(raw.lines.filter((l) => l.id === 5)).toHaveLength(2);
    // The last line, with no newline before the end of the input, is answered before the close.
    raw.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }));
    raw.child.stdin?.end();
    expect(await raw.exited).toBe(0);
    expect(raw.lines.find((l) => l.id === 6)).toMatchObject({ result: { tools: expect.any(Array) } });
  });
});
