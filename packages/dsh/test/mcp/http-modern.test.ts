/**
 * The 2026-07-28 revision over `dsh mcp --http` (issue 21): a client pinned to it (no session, each
 * request carrying its version in `_meta`) lists and calls the tools; its agent's terminal lives on
 * across requests; an escalation asks through elicitation and runs once approved; the token is
 * still required; and a 2025-11-25 session beside it is another agent.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { textOf } from './helpers.js';
import { httpClient, raw, startHttp } from './http-helpers.js';

const outside = mkdtempSync('/var/tmp/dsh-http-modern-');
afterAll(() => rmSync(outside, { recursive: true, force: true }));

async function modernClient(server: { endpoint: string; token: string }, approve?: boolean): Promise<Client> {
  const client = new Client(
    { name: 'dsh-modern-test', version: '1.0.0' },
    {
      capabilities: approve === undefined ? {} : { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  if (approve !== undefined) {
    client.setRequestHandler('elicitation/create', async () =>
      approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' },
    );
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.endpoint), {
      requestInit: { headers: { authorization: `Bearer ${server.token}` } },
    }),
  );
  return client;
}

describe('dsh mcp --http, 2026-07-28 revision', () => {
  it('lists and calls the tools; a terminal lives on across requests; a 2025 session is another agent', async () => {
    const server = await startHttp();
    const client = await modernClient(server);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('bash');
      const r = await client.callTool({ name: 'bash', arguments: { command: 'echo modern-$((6*7))' } });
      expect(textOf(r)).toBe('modern-42\n\n[exit code: 0]');
      const opened = await client.callTool({ name: 'terminal_open', arguments: { name: 'kept' } });
      const id = (opened.structuredContent as { terminal_id: string }).terminal_id;
      await client.callTool({ name: 'terminal_send', arguments: { terminal_id: id, input: 'X=kept-value' } });
      const sent = await client.callTool({ name: 'terminal_send', arguments: { terminal_id: id, input: 'echo $X' } });
      expect(textOf(sent)).toContain('kept-value');
      // A 2025-11-25 session beside it is another agent: it does not see that terminal.
      const { client: legacy } = await httpClient(server);
      const listed = await legacy.callTool({ name: 'terminal_list', arguments: {} });
      expect(textOf(listed)).not.toContain(id);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('an escalation asks through elicitation and runs once approved; the token is required', async () => {
    const server = await startHttp();
    const client = await modernClient(server, true);
    try {
      const target = join(outside, 'escalated');
      const denied = await client.callTool({ name: 'bash', arguments: { command: `touch ${target}` } });
      expect(textOf(denied)).toContain('[sandbox denied: file');
      const r = await client.callTool({
        name: 'bash',
        arguments: { command: `touch ${target}`, sandbox_permissions: 'require_escalated', justification: 'test' },
      });
      expect(textOf(r)).toContain('[exit code: 0]');
      expect(existsSync(target)).toBe(true);
      const list = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      };
      const without = await raw(server.port, {
        path: '/mcp',
        headers: {
          host: `127.0.0.1:${server.port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(list),
      });
      expect(without.status).toBe(401);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
