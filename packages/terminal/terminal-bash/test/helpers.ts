/**
 * A composition with real PTYs: the test world's subprocess runtime, the terminal service, and the bash backend.
 */
import { Composition, createOwner, type Owner } from '@dsh/core';
import { type TerminalService, terminalPlugin } from '@dsh/terminal';
import { type BashTerminalConfig, terminalBashPlugin } from '@dsh/terminal-bash';
import { afterEach } from 'vitest';
import { tempDir } from '../../../../test/support.js';
import { worldPlugin } from '../../../../test/worlds.js';

export { isAlive, tempDir, tracker, waitFor } from '../../../../test/support.js';

const open: Composition[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

export interface TermRig {
  composition: Composition;
  terminals: TerminalService;
  me: Owner;
  cwd: string;
  /** Opens a shell and returns a sender bound to it. */
  shell(): Promise<{ id: string; send(text: string, timeoutMs?: number): ReturnType<TerminalService['send']> }>;
}

export async function termRig(config: BashTerminalConfig = {}): Promise<TermRig> {
  const cwd = tempDir('dsh-term-test-');
  const composition = await Composition.create([
    worldPlugin(),
    terminalPlugin(),
    terminalBashPlugin({ cwd, ...config }),
  ]);
  open.push(composition);
  const terminals = composition.ctx.get('terminals');
  const me = createOwner('agent');
  return {
    composition,
    terminals,
    me,
    cwd,
    async shell() {
      const { id } = await terminals.open(me, { type: 'shell' });
      return { id, send: (text, timeoutMs = 20_000) => terminals.send(me, id, { text, timeoutMs }) };
    },
  };
}
