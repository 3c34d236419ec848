/**
 * The plugin that registers the terminal tools.
 */
import { type Plugin, workspaceToolPlugin } from '@dsh/core';
import { createTerminalTools } from './tools.js';

/** Plugin name of {@link toolTerminalPlugin}. */
export const TOOL_TERMINAL_PLUGIN = 'tool-terminal';

/**
 * Registers terminal_open/send/read/cancel/close; needs ctx.terminals (with the `shell` backend).
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function toolTerminalPlugin(options: { workspace: string }): Plugin {
  return workspaceToolPlugin(TOOL_TERMINAL_PLUGIN, ['terminals'], options, createTerminalTools);
}
