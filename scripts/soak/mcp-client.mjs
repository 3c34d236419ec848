// A minimal JSON-lines client of `dsh mcp` for the soak: initialize, then tools/call.
import { spawn } from 'node:child_process';

export async function startMcp(bin, workspace, args = []) {
  const child = spawn(process.execPath, [bin, 'mcp', '--workspace', workspace, '--no-log', ...args], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map();
  let buffered = '';
  let next = 1;
  child.stdout.on('data', (d) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const msg = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  const exited = new Promise((r) => child.once('exit', r));
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`, (e) => e && reject(e));
    });
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'soak', version: '1' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    call: (name, args) => request('tools/call', { name, arguments: args }),
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
