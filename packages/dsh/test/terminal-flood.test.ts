/**
 * A flood waits in the program, not in memory (issue 20, i): the PTY is held while the emulator
 * is behind — across the channel of the agent's world too — so what a cancel has to parse before
 * its prompt is bounded by the backlog limit, not by how long the flood ran.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { EMULATOR_BACKLOG_MAX_CHARS } from '@dsh/terminal-bash';
import { compose } from 'dsh';
import { describe, expect, it } from 'vitest';

describe('a flood in a terminal of a confined agent', () => {
  it('is held while the emulator catches up: a cancel parses little more than the backlog limit', async () => {
    const workspace = mkdtempSync('/var/tmp/dsh-flood-');
    const dsh = await compose({ preset: 'full', config: { workspace, sandbox: { mode: 'workspace-write' } } });
    try {
      const agent = dsh.createAgent('flood');
      const id = (await dsh.tools.call(agent, 'terminal_open', {})).data?.terminal_id as string;
      const flood = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'yes', timeout_ms: 1_500 });
      expect(flood.data).toMatchObject({ reason: 'timeout' });
      const cancel = await dsh.tools.call(agent, 'terminal_cancel', { terminal_id: id });
      expect(cancel.data).toMatchObject({ cancelled: true, exit_code: 130 });
      const read = /\[(\d+) earlier characters of this output not shown/.exec(cancel.text);
      // Unheld, the world's PTY and channel buffered millions of characters while the emulator parsed (4.9 M measured).
      expect(Number(read?.[1] ?? 0)).toBeLessThan(4 * EMULATOR_BACKLOG_MAX_CHARS);
      const after = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo after' });
      expect(after.text).toMatch(/^after\n/);
    } finally {
      await dsh.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
