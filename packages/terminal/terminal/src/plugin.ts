/**
 * The plugin that mounts `TerminalService` as `ctx.terminals`.
 */
import { type Plugin, persistentServicePlugin } from '@dsh/core';
import { TerminalService } from './terminal-service.js';

/** Plugin name of {@link terminalPlugin}. */
export const TERMINAL_PLUGIN = 'terminal';

/** Provides `ctx.terminals`. Sessions survive reloads (of this plugin, backends and tools); teardown closes them. */
export function terminalPlugin(): Plugin {
  return persistentServicePlugin({
    name: TERMINAL_PLUGIN,
    key: 'terminals',
    create: () => new TerminalService(),
    dispose: (service) => service.dispose(),
  });
}
