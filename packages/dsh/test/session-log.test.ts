/**
 * The session log: `<root>/<day>/<session>/session.jsonl`, 0600 files in 0700 directories, one
 * record a line; compressed to `session.jsonl.zstd` at a clean end (readable by Debian's
 * `zstdcat`), left plain after a crash; facts recovered from rendered text; bounded retention.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compose, listSessions, locateSession, parseShellResult, readSession, sweepSessions } from 'dsh';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support.js';
import { BIN, connect } from './mcp/helpers.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('session log', () => {
  it('log list is oldest first by start, also when an older session was written to last', () => {
    const root = tempDir('dsh-log-order-');
    const make = (id: string): string => {
      const dir = join(root, '2026-12-01', id);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, 'session.jsonl');
      writeFileSync(file, `${JSON.stringify({ type: 'session_start', session: id })}\n`, { mode: 0o600 });
      return file;
    };
    const older = make('20261201T100000Z-bbbbbb');
    make('20261201T110000Z-aaaaaa');
    const late = new Date(Date.now() + 60_000);
    utimesSync(older, late, late); // the older session wrote last
    expect(listSessions(root).map((s) => s.id)).toEqual(['20261201T100000Z-bbbbbb', '20261201T110000Z-aaaaaa']);
  });

  it('the log of an MCP session, decompressed with zstdcat, gives back the exit codes the calls returned', async () => {
    const c = await connect({ args: ['--sandbox', 'danger-full-access'] });
    const returned: number[] = [];
    for (const command of ['true', 'exit 3', 'echo hi; exit 7', 'kill -TERM $$']) {
      const r = await c.client.callTool({ name: 'bash', arguments: { command } });
      returned.push((r.structuredContent as { exit_code: number }).exit_code);
    }
    const job = await c.client.callTool({ name: 'bash', arguments: { command: 'exit 4', run_in_background: true } });
    const jobId = (job.structuredContent as { job_id: string }).job_id;
    const term = await c.client.callTool({ name: 'terminal_open', arguments: {} });
    const termId = (term.structuredContent as { terminal_id: string }).terminal_id;
    await c.client.callTool({ name: 'terminal_send', arguments: { terminal_id: termId, input: 'echo in-terminal' } });
    await c.close();
    const [session] = listSessions(c.logRoot);
    expect(session?.status).toBe('ended');
    const file = session?.path as string;
    expect(file.endsWith('session.jsonl.zstd')).toBe(true);
    expect(mode(file)).toBe(0o600);
    expect(mode(join(file, '..'))).toBe(0o700);
    const lines = execFileSync('zstdcat', [file], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'session_start', preset: 'full', sandbox: 'danger-full-access' });
    expect(lines.at(-1)).toMatchObject({ type: 'session_end' });
    const bashCalls = lines.filter((l) => l.type === 'tool_call' && l.tool === 'bash').slice(0, 4);
    expect(bashCalls.map((l) => parseShellResult(l.text as string).exitCode)).toEqual([...returned.slice(0, 3), null]);
    expect(parseShellResult(bashCalls[3]?.text as string).signal).toBe('SIGTERM');
    expect(lines.find((l) => l.type === 'job_end')).toMatchObject({ job_id: jobId, state: 'failed' });
    expect(lines.find((l) => l.type === 'terminal_send')).toMatchObject({
      terminal_id: termId,
      input: 'echo in-terminal',
      reason: 'stdin_read',
      exit_code: 0,
    });
    const shown = spawnSync(
      process.execPath,
      [BIN, 'log', 'show', '--json', '--log-dir', c.logRoot, session?.id as string],
      {
        encoding: 'utf8',
        env: { ...process.env, HOME: c.home },
      },
    );
    expect(shown.status).toBe(0);
    const facts = shown.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool?: string; facts: { exit_code: number | null } | null })
      .filter((r) => r.tool === 'bash')
      .slice(0, 3)
      .map((r) => r.facts?.exit_code);
    expect(facts).toEqual([0, 3, 7]);
  });

  it('a crashed session stays plain .jsonl and is still read, its torn last line skipped', async () => {
    const root = tempDir();
    const dsh = await compose({ config: { sessionLog: { dir: root } } });
    await dsh.tools.call(dsh.createAgent('a'), 'bash', { command: 'exit 2' });
    const { dir } = (dsh.dumpConfig().config as { sessionLog: { dir: string } }).sessionLog;
    appendFileSync(join(dir, 'session.jsonl'), '{"type":"tool_call","ts":"2026'); // a crash mid-write
    const read = await readSession(locateSession(dir, root));
    expect(read.compressed).toBe(false);
    expect(read.skipped).toBe(1);
    expect(read.records.map((r) => r.type)).toEqual(['session_start', 'tool_call']);
    expect(listSessions(root)[0]?.status).toBe('open');
    await dsh.dispose();
    expect(existsSync(join(dir, 'session.jsonl.zstd'))).toBe(true);
  });

  it('retention removes sessions past the age limit, then the oldest past the size budget', () => {
    const root = tempDir();
    const now = Date.now();
    const make = (day: string, id: string, bytes: number, ageMs: number): string => {
      const dir = join(root, day, id);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'session.jsonl.zstd');
      writeFileSync(file, Buffer.alloc(bytes));
      const t = (now - ageMs) / 1000;
      utimesSync(file, t, t);
      return dir;
    };
    const ancient = make('2026-01-01', 'a', 10, 40 * 86_400_000);
    const old = make('2026-11-01', 'b', 600, 3 * 86_400_000);
    const fresh = make('2026-11-30', 'c', 600, 1000);
    writeFileSync(join(root, 'not-ours.txt'), 'kept');
    sweepSessions(root, now, { maxAgeMs: 30 * 86_400_000, maxBytes: 1000 });
    expect([existsSync(ancient), existsSync(old), existsSync(fresh)]).toEqual([false, false, true]);
    expect(readdirSync(root).sort()).toEqual(['2026-11-30', 'not-ours.txt']);
  });

  it('unknown sessions are a typed error', () => {
    expect(() => locateSession('no-such-session', tempDir())).toThrow(
      expect.objectContaining({ code: 'SESSION_NOT_FOUND' }),
    );
  });
});
