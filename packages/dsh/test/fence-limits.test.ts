/**
 * Per-world limits through the bash tool (issue 19): a fork bomb stops at the pids limit and an
 * oversized allocation is killed, each told where the model reads it (from the host's cgroup
 * counters, not from what the command printed); the same agent's next call works, and another
 * agent's world is not slowed into failure meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { compose, type Dsh, parseShellResult } from 'dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dsh: Dsh;
let root: string;

beforeAll(async () => {
  root = mkdtempSync('/var/tmp/dsh-limits-');
  dsh = await compose({
    preset: 'base',
    config: {
      workspace: root,
      sandbox: { mode: 'workspace-write', limits: { pids: 64, memoryBytes: 256 * 1024 * 1024 } },
    },
  });
});

afterAll(async () => {
  await dsh.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('world limits', () => {
  it('a fork bomb is [sandbox limit: pids]; the next call of that agent works; another agent’s call works meanwhile', async () => {
    const bomber = dsh.createAgent('bomber');
    const other = dsh.createAgent('other');
    await dsh.tools.call(other, 'bash', { command: 'true' }); // its world exists before the bomb
    const bomb = dsh.tools.call(bomber, 'bash', {
      command: 'bomb() { bomb | bomb & }; bomb; sleep 2; exit 3',
      timeout_ms: 20_000,
    });
    const meanwhile = await dsh.tools.call(other, 'bash', { command: 'echo still-here' });
    expect(meanwhile.text).toMatch(/^still-here\n/);
    const parsed = parseShellResult((await bomb).text);
    expect(parsed.sandboxLimit).toBe('pids');
    expect((await bomb).text).toContain('[sandbox limit: pids]');
    expect(parsed.notes.join(' ')).toMatch(/process limit was reached.*fewer processes/);
    const next = await dsh.tools.call(bomber, 'bash', { command: 'echo alive' });
    expect(parseShellResult(next.text)).toMatchObject({ exitCode: 0, sandboxLimit: null });
  });

  it('an allocation past the memory limit is [killed: out of memory in the sandbox]', async () => {
    const agent = dsh.createAgent('hungry');
    const r = await dsh.tools.call(agent, 'bash', {
      command: 'python3 -c "b = bytearray(1024 * 1024 * 1024); print(\'allocated\', len(b))"',
    });
    const parsed = parseShellResult(r.text);
    expect(r.text).not.toContain('allocated');
    expect(parsed.sandboxLimit).toBe('memory');
    expect(r.text).toContain('[killed: out of memory in the sandbox]');
    const next = await dsh.tools.call(agent, 'bash', { command: 'echo fine' });
    expect(parseShellResult(next.text).exitCode).toBe(0);
  });
});
