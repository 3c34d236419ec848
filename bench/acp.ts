#!/usr/bin/env -S npx tsx
// `npm run bench` (part 9): ctx.acp (issue 13). A scripted one-step task (`say hi`) through
// agent_task's path (ctx.acp: spawn through ctx.subprocess, initialize, session/new, prompt,
// end) against the same exchange over a bare child_process with the SDK's client, in the same run.
// Then (issue 22) a follow-up turn on a live session (`session_id`) against a new task, and the
// agent_task overhead over the agent's own turn: agent_task follow-ups against prompts on a live
// raw SDK connection to the same agent.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { createOwner } from '@dsh/core';
import { compose } from 'dsh';
import { fmt, median } from './lib.mjs';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 10 : 30;
const AGENT = fileURLToPath(new URL('../packages/dsh/test/fixtures/acp-agent.mjs', import.meta.url));
const now = () => performance.now();
const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-acp-'));

async function rawTask(): Promise<string> {
  const child = spawn(process.execPath, [AGENT], { cwd: workspace, stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  const app = client({ name: 'raw' }).onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update as { sessionUpdate: string; content?: { text?: string } };
    if (u.sessionUpdate === 'agent_message_chunk') text += u.content?.text ?? '';
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  await app.connectWith(stream, async (ctx) => {
    await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const s = await ctx.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await ctx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'say hi' }],
    });
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.stdin.end();
  await exited;
  return text;
}

/** A raw SDK connection to the agent with one session, kept open: its turns cost no start. */
async function liveRaw(): Promise<{ turn(): Promise<void>; close(): Promise<void> }> {
  const child = spawn(process.execPath, [AGENT], { cwd: workspace, stdio: ['pipe', 'pipe', 'inherit'] });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  let text = '';
  const app = client({ name: 'raw' }).onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update as { sessionUpdate: string; content?: { text?: string } };
    if (u.sessionUpdate === 'agent_message_chunk') text += u.content?.text ?? '';
  });
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const ready = new Promise<(prompt: string) => Promise<void>>((resolve) => {
    void app.connectWith(stream, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const s = await ctx.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
      resolve(async (prompt) => {
        await ctx.request(methods.agent.session.prompt, {
          sessionId: s.sessionId,
          prompt: [{ type: 'text', text: prompt }],
        });
      });
      await held;
    });
  });
  const prompt = await ready;
  return {
    turn: async () => {
      text = '';
      await prompt('say hi');
      if (!text.includes('hi')) throw new Error('no message on the live raw session');
    },
    close: async () => {
      release();
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

const dsh = await compose({
  preset: 'base',
  config: {
    workspace,
    sandbox: { mode: 'danger-full-access' },
    acp: { agents: { scripted: { command: [process.execPath, AGENT] } } },
  },
});
try {
  const owner = createOwner('bench');
  const acp = dsh.ctx.get('acp');
  const ours: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    let t = now();
    const r = await acp.run(owner, 'scripted', 'say hi');
    const a = now() - t;
    if (!r.message.includes('hi')) throw new Error('no message from ctx.acp');
    t = now();
    if (!(await rawTask()).includes('hi')) throw new Error('no message raw');
    const b = now() - t;
    if (i >= 3) {
      ours.push(a);
      raw.push(b);
    }
  }
  const [mo, mr] = [median(ours), median(raw)];
  console.log(`dsh acp bench (node ${process.version}, ${RUNS} tasks)\n`);
  console.log(
    `${'scripted one-step task (spawn → answer → end), median ms (vs raw SDK client)'.padEnd(78)} ${fmt(mo, 1).padStart(8)} ${fmt(mr, 1).padStart(8)} ${`${fmt(mo / mr)}x`.padStart(7)}  ≤ 1.20x`,
  );
  // Follow-ups: agent_task with session_id against a new task, and against a live raw connection.
  const first = await dsh.tools.call(owner, 'agent_task', { agent: 'scripted', prompt: 'say hi' });
  const sessionId = (first.data as { session_id: string }).session_id;
  const live = await liveRaw();
  const followUps: number[] = [];
  const fresh: number[] = [];
  const rawTurns: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    let t = now();
    const f = await dsh.tools.call(owner, 'agent_task', { agent: 'scripted', prompt: 'say hi', session_id: sessionId });
    const a = now() - t;
    if (!f.text.includes('hi')) throw new Error(`follow-up failed: ${f.text}`);
    t = now();
    await live.turn();
    const c = now() - t;
    t = now();
    const n = await dsh.tools.call(owner, 'agent_task', { agent: 'scripted', prompt: 'say hi' });
    const b = now() - t;
    if (!n.text.includes('hi')) throw new Error(`new task failed: ${n.text}`);
    if (i >= 3) {
      followUps.push(a);
      fresh.push(b);
      rawTurns.push(c);
    }
  }
  await live.close();
  const [mf, mn, mt] = [median(followUps), median(fresh), median(rawTurns)];
  console.log(
    `${'follow-up turn (session_id) over a new task, median ms (pays no process start)'.padEnd(78)} ${fmt(mf, 1).padStart(8)} ${fmt(mn, 1).padStart(8)} ${`${fmt(mf / mn)}x`.padStart(7)}  record`,
  );
  console.log(
    `${'agent_task follow-up over a raw SDK turn on a live session, median ms (+ms)'.padEnd(78)} ${fmt(mf, 1).padStart(8)} ${fmt(mt, 1).padStart(8)} ${`+${fmt(mf - mt, 1)}`.padStart(7)}  ≤ +5 ms`,
  );
} finally {
  await dsh.dispose();
  rmSync(workspace, { recursive: true, force: true });
}
