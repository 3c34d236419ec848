/**
 * The composition's output copies (issue 9): one private directory per composition, removed at
 * dispose unless kept, bounded by a disk budget (oldest first; notes then say the copy is gone),
 * and directories of dsh processes that died swept at the next start. Plus strict options.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compose, parseShellResult } from 'dsh';
import { describe, expect, it } from 'vitest';
import { codeOf, tempDir } from '../../../test/support.js';

const big = "head -c 2000000 /dev/zero | tr '\\0' a";

describe('output copies', () => {
  it('live in one directory per composition, removed at dispose', async () => {
    const root = tempDir();
    const dsh = await compose({ config: { output: { dir: root }, sandbox: { mode: 'danger-full-access' } } });
    const r = await dsh.tools.call(dsh.createAgent('o'), 'bash', { command: big });
    const spill = parseShellResult(r.text).spillPath as string;
    const { dir } = (dsh.dumpConfig().config as { output: { dir: string } }).output;
    expect(spill.startsWith(`${dir}/`)).toBe(true);
    expect(existsSync(spill)).toBe(true);
    await dsh.dispose();
    expect(existsSync(dir)).toBe(false);
  });

  it('are kept after dispose when asked', async () => {
    const root = tempDir();
    const dsh = await compose({
      config: { output: { dir: root, keep: true }, sandbox: { mode: 'danger-full-access' } },
    });
    const r = await dsh.tools.call(dsh.createAgent('o'), 'bash', { command: big });
    await dsh.dispose();
    expect(existsSync(parseShellResult(r.text).spillPath as string)).toBe(true);
  });

  it('stay within the disk budget, oldest first, and a later read says the copy is gone', async () => {
    const root = tempDir();
    const dsh = await compose({
      config: { output: { dir: root, maxBytes: 3_000_000 }, sandbox: { mode: 'danger-full-access' } },
    });
    const agent = dsh.createAgent('o');
    const job = await dsh.tools.call(agent, 'bash', { command: `${big}; sleep 30`, run_in_background: true });
    const jobId = job.data.job_id as string;
    const firstSpill = await (async () => {
      for (;;) {
        const files = readdirSync(join((dsh.dumpConfig().config as { output: { dir: string } }).output.dir, 'spill'));
        if (files.some((f) => f.endsWith('.stdout'))) return files;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    expect(firstSpill.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1_100)); // the budget is checked at most once a second
    for (let i = 0; i < 2; i++) await dsh.tools.call(agent, 'bash', { command: big });
    const out = await dsh.tools.call(agent, 'job_output', { job_id: jobId });
    expect(out.text).toMatch(/complete copy was removed \(the output disk budget is full\)/);
    await dsh.dispose();
  });

  it('directories of dsh processes that died are swept at the next start', async () => {
    const root = tempDir();
    const dead = join(root, `run-${2 ** 22 + 7}-deadbeef`); // above pid_max: no such process
    mkdirSync(join(dead, 'spill'), { recursive: true });
    writeFileSync(join(dead, 'spill', 'old.stdout'), 'x');
    const dsh = await compose({ config: { output: { dir: root } } });
    expect(existsSync(dead)).toBe(false);
    await dsh.dispose();
  });
});

describe('strict compose options', () => {
  it('a config key at the top level is refused with where it belongs', async () => {
    const approver = async () => true;
    const error = await compose({ approver } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      data: { field: 'approver', suggestion: 'config.approver' },
    });
    expect((error as Error).message).toMatch(/did you mean config\.approver\?/);
  });

  it('typos are refused with the nearest valid key, at every level', async () => {
    expect(await compose({ cofnig: {} } as never).catch((e: unknown) => (e as { data: unknown }).data)).toEqual({
      field: 'cofnig',
      suggestion: 'config',
    });
    expect(await codeOf(compose({ config: { sandbox: { mdoe: 'read-only' } } as never }))).toBe('INVALID_ARGUMENT');
    const nested = await compose({ config: { sandbox: { mdoe: 'read-only' } } as never }).catch((e: unknown) => e);
    expect(nested).toMatchObject({ data: { field: 'config.sandbox.mdoe', suggestion: 'mode' } });
    const shell = await compose({ config: { shell: { timeoutMS: 5 } } as never }).catch((e: unknown) => e);
    expect(shell).toMatchObject({ data: { field: 'config.shell.timeoutMS', suggestion: 'timeoutMs' } });
    const misplaced = await compose({ config: { preset: 'full' } as never }).catch((e: unknown) => e);
    expect((misplaced as Error).message).toMatch(/top-level option preset/);
  });
});
