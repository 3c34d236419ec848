/**
 * The plugin that registers the persistent `bash` tool.
 */
import { type Plugin, workspaceToolPlugin } from '@dsh/core';
import type { PersistentBashOptions } from './persistent-bash.js';
import { createPersistentBashTool } from './persistent-bash.js';

/** Plugin name of {@link toolBashPersistentPlugin}. */
export const TOOL_BASH_PERSISTENT_PLUGIN = 'tool-bash-persistent';

/**
 * Registers `bash` running in each agent's own persistent shell; needs ctx.terminals.
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function toolBashPersistentPlugin(options: PersistentBashOptions): Plugin {
  return workspaceToolPlugin(TOOL_BASH_PERSISTENT_PLUGIN, ['terminals'], options, (o) => [createPersistentBashTool(o)]);
}
