/**
 * read-only mode works with any workspace (one under /tmp, which the fence replaces, included),
 * and a command that cannot start is an error result (issue 19, j).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { compose, parseShellResult } from 'dsh';
import { describe, expect, it } from 'vitest';

describe('a refused system call', () => {
  it('is named, with what to do next', async () => {
    const workspace = mkdtempSync('/var/tmp/dsh-syscall-ws-');
    const dsh = await compose({ preset: 'base', config: { workspace } });
    try {
      const r = await dsh.tools.call(dsh.createAgent('tracer'), 'bash', { command: 'strace -p 2' });
      const parsed = parseShellResult(r.text);
      expect(parsed).toMatchObject({ sandboxDenied: true, denial: 'syscall', denialDetail: 'ptrace' });
      expect(parsed.notes.join(' ')).toMatch(/refuses the ptrace call.*require_escalated/);
    } finally {
      await dsh.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('read-only mode', () => {
  it('sees a workspace under /tmp (read-only), and a workdir missing in the world is isError', async () => {
    const workspace = mkdtempSync('/tmp/dsh-ro-ws-');
    const dsh = await compose({ preset: 'base', config: { workspace, sandbox: { mode: 'read-only' } } });
    try {
      const agent = dsh.createAgent('reader');
      const ls = await dsh.tools.call(agent, 'bash', { command: 'pwd; echo x > f' });
      const parsed = parseShellResult(ls.text);
      expect(ls.isError).toBe(false);
      expect(parsed.stdout).toBe(`${workspace}\n`);
      expect(parsed).toMatchObject({ sandboxDenied: true, denial: 'file' });
      const elsewhere = mkdtempSync('/tmp/dsh-ro-other-'); // exists on the host, not in the world
      try {
        const r = await dsh.tools.call(agent, 'bash', { command: 'true', workdir: elsewhere });
        expect(r.isError).toBe(true);
        expect(parseShellResult(r.text).startError?.code).toBe('CWD_NOT_FOUND');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    } finally {
      await dsh.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
