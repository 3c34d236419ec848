/**
 * A composition of the real lower layers plus tool-bash, torn down after each test.
 */
import { join } from 'node:path';
import { bashLocalPlugin, type LocalBashConfig } from '@dsh/bash-local';
import { Composition, createOwner, type Owner, type ToolResult } from '@dsh/core';
import { jobsPlugin } from '@dsh/jobs';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { toolBashPlugin } from '@dsh/tool-bash';
import { afterEach } from 'vitest';

import { tempDir } from '../../../../test/support.js';

export { isAlive, tempDir, waitFor } from '../../../../test/support.js';

const open: Composition[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

export interface Rig {
  composition: Composition;
  workspace: string;
  agent: Owner;
  call(tool: string, args: unknown, agent?: Owner): Promise<ToolResult>;
}

export async function rig(shell: LocalBashConfig = {}): Promise<Rig> {
  const workspace = tempDir();
  const composition = await Composition.create([
    subprocessLocalPlugin(),
    bashLocalPlugin({ cwd: workspace, spillDir: join(workspace, '.spill'), graceMs: 200, ...shell }),
    jobsPlugin(),
    toolBashPlugin({ workspace }),
  ]);
  open.push(composition);
  const agent = createOwner('agent-1');
  return {
    composition,
    workspace,
    agent,
    call: (tool, args, who = agent) => composition.tools.call(who, tool, args),
  };
}
