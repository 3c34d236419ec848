/**
 * Bad input at the MCP server (`dsh mcp`, raw JSON lines): malformed, batched, early, unknown
 * and oversized messages are answered and serving goes on; bad tool arguments are tool errors.
 */
import { start } from '../mcp/raw.js';
import type { BadInput } from './observe.js';

let nextId = 1000;
type Message = Record<string, unknown>;

/** The error code (or `result` with isError and its code) of the response to `id`. */
function summary(response: Message): string {
  if (response.error) return `JSON-RPC ${(response.error as { code: number }).code}`;
  const result = response.result as { isError?: boolean; structuredContent?: { error?: { code?: string } } };
  return result.isError ? `tool error ${result.structuredContent?.error?.code ?? '?'}` : 'result';
}

/** Sends a line, then a ping: the answer to the line (by id, or the null-id error it earns) and the ping's; a missing answer reads "no answer". */
async function exchange(r: Parameters<BadInput['run']>[0], line: string, id: number | null): Promise<string> {
  const raw = await r.mcp();
  const seen = raw.lines.length;
  raw.sendRaw(`${line}\n`);
  const ping = nextId++;
  raw.send({ jsonrpc: '2.0', id: ping, method: 'ping' });
  const pong = await raw.response(ping);
  // An error without an id is the parser's, told before the ping is read; a request with an id
  // may be answered after the ping (a tool call runs its handler first): wait for it.
  const answer =
    id === null
      ? raw.lines.slice(seen).find((l) => l.id === null || l.id === undefined)
      : await raw.response(id).catch(() => undefined);
  return `${answer ? summary(answer) : 'no answer'}; then ping ${pong.error ? 'failed' : 'answered'}`;
}

const req = (method: string, params: Message = {}): [string, number] => {
  const id = nextId++;
  return [JSON.stringify({ jsonrpc: '2.0', id, method, params }), id];
};

export const MCP_ROWS: BadInput[] = [
  {
    layer: 'mcp',
    input: 'a request before initialize',
    expect: 'JSON-RPC -32600',
    run: async () => {
      const raw = start();
      try {
        raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        return summary(await raw.response(1));
      } finally {
        raw.child.stdin?.end();
        await raw.exited;
      }
    },
  },
  {
    layer: 'mcp',
    input: 'a line that is not JSON',
    expect: 'JSON-RPC -32700; then ping answered',
    run: (r) => exchange(r, '{"jsonrpc": "2.0", "id": 1,', null),
  },
  {
    layer: 'mcp',
    input: 'a batch (JSON array)',
    expect: 'JSON-RPC -32600; then ping answered',
    run: (r) => exchange(r, JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'ping' }]), null),
  },
  {
    layer: 'mcp',
    input: 'a request without jsonrpc: "2.0"',
    expect: 'JSON-RPC -32600; then ping answered',
    run: (r) => exchange(r, JSON.stringify({ id: 9, method: 'ping' }), 9),
  },
  {
    layer: 'mcp',
    input: 'an unknown method',
    expect: 'JSON-RPC -32601; then ping answered',
    run: (r) => exchange(r, ...req('tools/nope')),
  },
  {
    layer: 'mcp',
    input: 'tools/call of an unknown tool',
    expect: 'JSON-RPC -32602; then ping answered',
    run: (r) => exchange(r, ...req('tools/call', { name: 'nope', arguments: {} })),
  },
  {
    layer: 'mcp',
    input: 'tools/call with bad arguments',
    expect: 'tool error INVALID_ARGUMENT; then ping answered',
    run: (r) => exchange(r, ...req('tools/call', { name: 'bash', arguments: { command: 42 } })),
  },
  {
    layer: 'mcp',
    input: 'a 33 MiB message',
    expect: 'JSON-RPC -32600; then ping answered',
    run: (r) =>
      exchange(
        r,
        JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'ping', params: { pad: 'x'.repeat(33 * 1024 * 1024) } }),
        null,
      ),
  },
];
