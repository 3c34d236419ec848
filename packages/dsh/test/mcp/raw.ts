/**
 * A raw line client of `dsh mcp`: the real CLI over stdio, JSON lines in and out, for tests of
 * the protocol edge (malformed, early, oversized and unknown messages).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, waitFor } from './helpers.js';

export interface Raw {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Parsed stdout lines so far (every line must be JSON). */
  lines: Record<string, unknown>[];
  stderr(): string;
  send(message: unknown): void;
  sendRaw(text: string): void;
  /** The response to request `id`. */
  response(id: number): Promise<Record<string, unknown>>;
}

export const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export function start(args: string[] = []): Raw {
  const home = tempDir('dsh-mcp-raw-');
  const workspace = join(home, 'ws');
  mkdirSync(workspace);
  const child = spawn(process.execPath, [BIN, 'mcp', '--workspace', workspace, '--no-log', ...args], {
    env: { ...process.env, HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let buffered = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    buffered += d.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>); // stdout is protocol only
      buffered = buffered.slice(nl + 1);
    }
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    lines,
    stderr: () => err,
    send: (message) => child.stdin?.write(`${JSON.stringify(message)}\n`),
    sendRaw: (text) => child.stdin?.write(text),
    response: (id) => waitFor(() => lines.find((l) => l.id === id), `response ${id}`),
  };
}

export async function initialized(args: string[] = []): Promise<Raw> {
  const raw = start(args);
  raw.send(INIT);
  await raw.response(0);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return raw;
}
