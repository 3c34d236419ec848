/**
 * Test helpers for `dsh mcp`: the real CLI over stdio, driven by the official SDK client in
 * either protocol era, with a private HOME and workspace, and everything ended after each test.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach } from 'vitest';
import { isAlive, tempDir, waitFor } from '../../../../test/support.js';

export { isAlive, tempDir, waitFor };

export const BIN = fileURLToPath(new URL('../../bin/dsh.js', import.meta.url));

/** The protocol eras a client can open with. */
export type Era = 'legacy' | 'modern';
export const ERAS: Era[] = ['legacy', 'modern'];

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  workspace: string;
  home: string;
  logRoot: string;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** Starts `dsh mcp` with `args` and connects a client in `era`. */
export async function connect(
  options: {
    era?: Era;
    args?: string[];
    /** Answers elicitations; without it the client declares no elicitation support. */
    elicit?: (message: string) => {
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, string | number | boolean>;
    };
  } = {},
): Promise<Connected> {
  const home = tempDir('dsh-mcp-home-');
  const workspace = join(home, 'ws');
  mkdirSync(workspace);
  const logRoot = join(home, 'logs');
  const era = options.era ?? 'legacy';
  const client = new Client(
    { name: 'dsh-test', version: '1.0.0' },
    {
      capabilities: options.elicit ? { elicitation: { form: {} } } : {},
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const elicit = options.elicit;
  if (elicit) client.setRequestHandler('elicitation/create', async (r) => elicit(String(r.params.message)));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--workspace', workspace, '--log-dir', logRoot, ...(options.args ?? [])],
    env: { ...(process.env as Record<string, string>), HOME: home },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  await client.connect(transport);
  const pid = transport.pid as number;
  const connected: Connected = {
    client,
    transport,
    pid,
    workspace,
    home,
    logRoot,
    stderr: () => err,
    close: async () => {
      await client.close().catch(() => undefined);
      await waitFor(() => !isAlive(pid), 'dsh mcp exited');
    },
  };
  open.push(connected);
  return connected;
}

/** The text of a tool result. */
export function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((c) => c.text ?? '').join('');
}
