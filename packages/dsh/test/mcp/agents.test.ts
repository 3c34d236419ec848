/**
 * Sub-agents through `dsh mcp` (a config file names a scripted ACP agent): a permission request
 * reaches an elicitation-capable client, in both eras, with the option's text, and the answer
 * reaches the agent; without elicitation it is rejected. A task longer than the client's request
 * timeout hands over to a job, with progress, and finishes there.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connect, ERAS, tempDir, textOf } from './helpers.js';

const AGENT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'acp-agent.mjs');

/** A config file naming the scripted agent. */
function agentConfig(): string {
  const file = join(tempDir('dsh-mcp-agents-'), 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      acp: { agents: { scripted: { command: [process.execPath, AGENT], description: 'a scripted test agent' } } },
    }),
  );
  return file;
}

describe.each(ERAS)('a sub-agent permission request over MCP (%s era)', (era) => {
  it('reaches the user with what the agent wants and its options; the answer reaches the agent', async () => {
    for (const [answer, word] of [
      [true, 'allowed'],
      [false, 'rejected'],
    ] as const) {
      const asked: string[] = [];
      const { client } = await connect({
        era,
        args: ['--config', agentConfig()],
        elicit: (message) => {
          asked.push(message);
          return { action: 'accept', content: { approve: answer } };
        },
      });
      const r = await client.callTool({ name: 'agent_task', arguments: { agent: 'scripted', prompt: 'ask' } });
      expect(textOf(r)).toContain(`permission: ${word}`);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('delete the build directory');
      expect(asked[0]).toContain('"Allow"');
      expect(asked[0]).toContain('"Reject"');
      await client.close();
    }
  });

  it('declined, or a client without elicitation: rejected, and the task goes on', async () => {
    const declining = await connect({ era, args: ['--config', agentConfig()], elicit: () => ({ action: 'decline' }) });
    const r = await declining.client.callTool({ name: 'agent_task', arguments: { agent: 'scripted', prompt: 'ask' } });
    expect(textOf(r)).toContain('permission: rejected');
    const mute = await connect({ era, args: ['--config', agentConfig()] });
    const m = await mute.client.callTool({ name: 'agent_task', arguments: { agent: 'scripted', prompt: 'ask' } });
    expect(textOf(m)).toContain('permission: rejected');
  });
});

describe('a long sub-agent task over MCP', () => {
  it('a 70 s task with a 60 s-timeout client hands over to a job, with progress, and finishes there', async () => {
    const { client } = await connect({ args: ['--config', agentConfig()] });
    const progress: string[] = [];
    const r = await client.callTool(
      { name: 'agent_task', arguments: { agent: 'scripted', prompt: 'say started\nsleep 70000\nsay all done' } },
      { timeout: 60_000, onprogress: (p) => progress.push(String(p.message ?? '')) },
    );
    const data = r.structuredContent as { job_id: string; yielded: boolean };
    expect(data.yielded).toBe(true);
    expect(textOf(r)).toContain('started');
    expect(progress.some((m) => m.includes('started'))).toBe(true);
    // The job has about 25 s to go: poll with a deadline of its own, past the helpers' 20 s.
    let seen = '';
    let ended: Awaited<ReturnType<typeof client.callTool>> | null = null;
    for (const until = Date.now() + 120_000; !ended && Date.now() < until; ) {
      const out = await client.callTool({ name: 'job_output', arguments: { job_id: data.job_id } });
      seen += textOf(out);
      if ((out.structuredContent as { state: string }).state !== 'running') ended = out;
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!ended) throw new Error('the job did not end within 120 s');
    expect((ended.structuredContent as { state: string }).state).toBe('succeeded');
    expect(seen).toContain('all done');
    expect(textOf(ended)).toContain('[stop reason: end_turn]');
  }, 180_000);
});
