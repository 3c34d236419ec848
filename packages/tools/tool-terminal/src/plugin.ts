/**
 * The plugin that registers the terminal tools.
 */
import { isAbsolute } from 'node:path';
import { DshError, type Plugin } from '@dsh/core';
import { createTerminalTools } from './tools.js';

/** Plugin name of {@link toolTerminalPlugin}. */
export const TOOL_TERMINAL_PLUGIN = 'tool-terminal';

/**
 * Registers terminal_open/send/read/cancel/close; needs ctx.terminals (with the `shell` backend).
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function toolTerminalPlugin(options: { workspace: string }): Plugin {
  if (typeof options?.workspace !== 'string' || !isAbsolute(options.workspace)) {
    throw new DshError('INVALID_ARGUMENT', 'toolTerminalPlugin needs { workspace } as an absolute path.', {
      data: { field: 'workspace' },
    });
  }
  return {
    name: TOOL_TERMINAL_PLUGIN,
    requires: ['terminals'],
    setup(api) {
      for (const t of createTerminalTools(options)) api.registerTool(t);
    },
  };
}
