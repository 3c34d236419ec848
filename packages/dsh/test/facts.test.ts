/**
 * Facts a result states about itself (issue 21 c): output that is not UTF-8 text is saved as the
 * bytes it was, the "kept" figure is the real count of bytes kept, and a job handed over at the
 * yield limit counts its age from the command's start.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { compose, type Dsh } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, waitFor } from '../../../test/support.js';

const MIB = 1024 * 1024;
let dsh: Dsh | null = null;
afterEach(async () => {
  await dsh?.dispose();
  dsh = null;
});

async function open(): Promise<{ dsh: Dsh; workspace: string }> {
  const workspace = tempDir('dsh-facts-');
  dsh = await compose({ preset: 'base', config: { workspace } });
  return { dsh, workspace };
}

describe('result facts', () => {
  it('binary output cut for display is saved as its bytes, and the note names that file', async () => {
    const { dsh, workspace } = await open();
    const agent = dsh.createAgent('t');
    const r = await dsh.tools.call(agent, 'bash', { command: 'head -c 100000 /dev/urandom > blob; cat blob' });
    const saved = (r.data.saved_output as { stdout?: string }).stdout as string;
    expect(saved).toMatch(/\.stdout\.bytes$/);
    expect(r.text).toContain(`all 100000 bytes, as produced, are in ${saved}`);
    expect(readFileSync(saved).equals(readFileSync(join(workspace, 'blob')))).toBe(true);
  });

  it('UTF-8 output cut for display is saved as its text', async () => {
    const { dsh } = await open();
    const r = await dsh.tools.call(dsh.createAgent('t'), 'bash', { command: 'seq 1 30000' });
    const saved = (r.data.saved_output as { stdout?: string }).stdout as string;
    expect(saved).toMatch(/\.stdout\.shown$/);
    expect(readFileSync(saved, 'utf8').split('\n')[29999]).toBe('30000');
  });

  it('the kept figure of truncated binary output is the bytes really kept', async () => {
    const { dsh } = await open();
    const r = await dsh.tools.call(dsh.createAgent('t'), 'bash', { command: 'head -c 2000000 /dev/urandom' });
    const kept = /stdout kept last (\d+) of 2000000 bytes/.exec(r.text);
    expect(kept, r.text.slice(-600)).not.toBeNull();
    // The tail kept in memory is 1 MiB (the default); a UTF-8 character cut at its start is not counted.
    // Counted from the decoded text (U+FFFD is 3 bytes) the figure was about 1.9 million.
    const n = Number(kept?.[1]);
    expect(n).toBeLessThanOrEqual(MIB);
    expect(n).toBeGreaterThanOrEqual(MIB - 3);
  });

  it('a job handed over at the yield limit counts its age from the command’s start', async () => {
    const { dsh } = await open();
    const agent = dsh.createAgent('t');
    const before = Date.now();
    const r = await dsh.tools.call(agent, 'bash', { command: 'sleep 2' }, { yieldMs: 1500 });
    const jobId = r.data.job_id as string;
    expect(r.data.yielded).toBe(true);
    const jobs = dsh.ctx.get('jobs');
    const info = await waitFor(() => {
      const i = jobs.info(agent, jobId);
      return i.state === 'succeeded' ? i : null;
    }, 'the job ended');
    // Started before the yield (1.5 s into the call), not at it.
    expect((info.startedAt as number) - before).toBeLessThan(1500);
  });

  it('a deadline over the limit is lowered and the result says so', async () => {
    const { dsh } = await open();
    const r = await dsh.tools.call(dsh.createAgent('t'), 'bash', { command: 'echo hi', timeout_ms: 1e12 });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/timeout_ms 1000000000000 is over the limit: the command has 600000 ms/);
    const ok = await dsh.tools.call(dsh.createAgent('t'), 'bash', { command: 'echo hi', timeout_ms: 5000 });
    expect(ok.text).not.toContain('over the limit');
  });

  it('a blank command is refused as blank', async () => {
    const { dsh } = await open();
    const r = await dsh.tools.call(dsh.createAgent('t'), 'bash', { command: '  \t ' });
    expect(r.isError).toBe(true);
    expect((r.data.error as { code: string }).code).toBe('INVALID_ARGUMENT');
    expect(r.text).toContain('the command is blank');
  });

  it('a refused loopback connection is a sandbox denial only when the host listens on that port', async () => {
    const workspace = tempDir('dsh-facts-');
    dsh = await compose({ preset: 'base', config: { workspace, sandbox: { mode: 'workspace-write' } } });
    const agent = dsh.createAgent('t');
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const listening = (server.address() as AddressInfo).port;
    const free = createServer(() => undefined);
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', () => resolve()));
    const idle = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    try {
      const connect = (port: number) =>
        `${process.execPath} -e "require('net').connect(${port}, '127.0.0.1').on('error', (e) => { console.error(e.message); process.exit(1); })"`;
      const own = await dsh.tools.call(agent, 'bash', { command: connect(idle) });
      expect(own.text).toContain('ECONNREFUSED');
      expect(own.data.sandbox).toMatchObject({ denied: false });
      expect(own.text).not.toContain('[sandbox denied');
      const fenced = await dsh.tools.call(agent, 'bash', { command: connect(listening) });
      expect(fenced.data.sandbox).toMatchObject({ denied: true, denial: 'network' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('spill files in a caller’s own spillDir are removed at dispose, unless the output is kept', async () => {
    for (const keep of [false, true]) {
      const spill = tempDir('dsh-caller-spill-');
      const d = await compose({
        preset: 'base',
        config: { workspace: tempDir('dsh-facts-'), shell: { spillDir: spill }, output: { keep } },
      });
      const r = await d.tools.call(d.createAgent('t'), 'bash', { command: "head -c 3000000 /dev/zero | tr '\\0' a" });
      const full = /full output: ([^\s\]]+)/.exec(r.text)?.[1] as string;
      expect(full.startsWith(spill), r.text.slice(-400)).toBe(true);
      expect(readFileSync(full).length).toBe(3_000_000);
      await d.dispose();
      expect(existsSync(full)).toBe(keep);
      expect(existsSync(spill)).toBe(true); // the caller's directory itself is left as it is
    }
  });
});
