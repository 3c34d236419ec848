/**
 * A composition with the terminal tools over real PTYs, closed after each test.
 */
import { Composition, createOwner, type Owner, type ToolResult } from '@dsh/core';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { terminalPlugin } from '@dsh/terminal';
import { terminalBashPlugin } from '@dsh/terminal-bash';
import { toolTerminalPlugin } from '@dsh/tool-terminal';
import { afterEach } from 'vitest';
import { tempDir } from '../../../../test/support.js';

const open: Composition[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

/** The tools in a fresh workspace; `call` calls one as the agent (or `who`). */
export async function rig(prefix = 'dsh-tterm-') {
  const workspace = tempDir(prefix);
  const c = await Composition.create([
    subprocessLocalPlugin(),
    terminalPlugin(),
    terminalBashPlugin({ cwd: workspace }),
    toolTerminalPlugin({ workspace }),
  ]);
  open.push(c);
  const agent = createOwner('agent');
  const call = (tool: string, args: unknown, who: Owner = agent, options = {}): Promise<ToolResult> =>
    c.tools.call(who, tool, args, options);
  return { c, agent, call, workspace };
}
