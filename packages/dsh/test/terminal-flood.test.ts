/**
 * A flood waits in the program, not in memory (issue 20, i): the PTY is held while the emulator
 * is behind — across the channel of the agent's world too — so what a cancel has to parse before
 * its prompt is bounded by the backlog limit, not by how long the flood ran.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { EMULATOR_BACKLOG_MAX_CHARS } from '@dsh/terminal-bash';
import { compose } from 'dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sshd, startSshd } from '../../../test/sshd.js';

/** OpenSSH's session channel window (64 packets of 32 KiB): what an ssh channel can hold in flight besides the held PTY. */
const SSH_CHANNEL_WINDOW_BYTES = 64 * 32 * 1024;
/** A flood the emulator must parse (plain lines skip it: plain-skip.ts), so the hold is what bounds it. */
const BOLD_FLOOD = `yes "$(printf '\\033[1my\\033[0m')"`;

type Composed = Awaited<ReturnType<typeof compose>>;
type Agent = ReturnType<Composed['createAgent']>;

/** Floods terminal `id` until its send times out, cancels it, and returns how much output the cancel passed over. */
async function floodThenCancel(dsh: Composed, agent: Agent, id: string) {
  const flood = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: BOLD_FLOOD, timeout_ms: 1_500 });
  expect(flood.data).toMatchObject({ reason: 'timeout' });
  const cancel = await dsh.tools.call(agent, 'terminal_cancel', { terminal_id: id });
  expect(cancel.data).toMatchObject({ cancelled: true, exit_code: 130 });
  const read = /\[(\d+) earlier characters of this output not shown/.exec(cancel.text);
  return { passedOver: Number(read?.[1] ?? 0), cancelText: cancel.text };
}

/** The next command in terminal `id` runs and shows its output. */
async function expectRunsAfter(dsh: Composed, agent: Agent, id: string): Promise<void> {
  const after = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo after' });
  // The flood's last sequence may be cut open (the kernel drops queued output at ^C): the prompt
  // still starts a row of its own, so the send's output is its own line (rcfile.ts).
  expect(after.data).toMatchObject({ exit_code: 0 });
  expect(after.text).toMatch(/^after\n/);
}

describe('a flood in a terminal of a confined agent', () => {
  it('is held while the emulator catches up: a cancel parses little more than the backlog limit', async () => {
    const workspace = mkdtempSync('/var/tmp/dsh-flood-');
    const dsh = await compose({ preset: 'full', config: { workspace, sandbox: { mode: 'workspace-write' } } });
    try {
      const agent = dsh.createAgent('flood');
      const id = (await dsh.tools.call(agent, 'terminal_open', {})).data?.terminal_id as string;
      const { passedOver } = await floodThenCancel(dsh, agent, id);
      // Unheld, the world's PTY and channel buffered millions of characters while the emulator parsed (4.9 M measured).
      expect(passedOver).toBeLessThan(4 * EMULATOR_BACKLOG_MAX_CHARS);
      await expectRunsAfter(dsh, agent, id);
    } finally {
      await dsh.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('a flood in a terminal of a remote world over ssh', () => {
  let sshd: Sshd;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it('is held across the ssh channel too: a cancel parses at most the backlog limit and the channel window', async () => {
    const dsh = await compose({
      preset: 'full',
      config: { world: { kind: 'remote', connect: sshd.argv('root') }, sandbox: { mode: 'danger-full-access' } },
    });
    try {
      const agent = dsh.createAgent('flood');
      const id = (await dsh.tools.call(agent, 'terminal_open', {})).data?.terminal_id as string;
      for (let round = 0; round < 2; round++) {
        const { passedOver, cancelText } = await floodThenCancel(dsh, agent, id);
        expect(passedOver).toBeLessThan(4 * EMULATOR_BACKLOG_MAX_CHARS + SSH_CHANNEL_WINDOW_BYTES);
        expect(cancelText.length).toBeLessThan(2_000); // the per-send budget: a tail and a count, not the flood
      }
      await expectRunsAfter(dsh, agent, id);
    } finally {
      await dsh.dispose();
    }
  });
});
