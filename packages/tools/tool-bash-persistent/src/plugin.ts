/**
 * The plugin that registers the persistent `bash` tool.
 */
import { isAbsolute } from 'node:path';
import { DshError, type Plugin } from '@dsh/core';
import { createPersistentBashTool } from './persistent-bash.js';

/** Plugin name of {@link toolBashPersistentPlugin}. */
export const TOOL_BASH_PERSISTENT_PLUGIN = 'tool-bash-persistent';

/**
 * Registers `bash` running in each agent's own persistent shell; needs ctx.terminals.
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function toolBashPersistentPlugin(options: { workspace: string }): Plugin {
  if (typeof options?.workspace !== 'string' || !isAbsolute(options.workspace)) {
    throw new DshError('INVALID_ARGUMENT', 'toolBashPersistentPlugin needs { workspace } as an absolute path.', {
      data: { field: 'workspace' },
    });
  }
  return {
    name: TOOL_BASH_PERSISTENT_PLUGIN,
    requires: ['terminals'],
    setup(api) {
      api.registerTool(createPersistentBashTool(options));
    },
  };
}
