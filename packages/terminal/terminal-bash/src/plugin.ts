/**
 * The plugin that registers the `shell` backend with ctx.terminals.
 */
import type { Plugin } from '@dsh/core';
import type {} from '@dsh/sandbox';
import { BashTerminalBackend } from './backend.js';
import type { BashTerminalConfig } from './config.js';

/** Plugin name of {@link terminalBashPlugin}. */
export const TERMINAL_BASH_PLUGIN = 'terminal-bash';

/** Registers the persistent bash backend. A reload replaces the backend; open sessions live on. */
export function terminalBashPlugin(config: BashTerminalConfig = {}): Plugin {
  let unregister: (() => void) | undefined;
  return {
    name: TERMINAL_BASH_PLUGIN,
    requires: ['subprocess', 'terminals'],
    setup(api) {
      const terminals = api.ctx.get('terminals');
      const made = new BashTerminalBackend(
        () => api.ctx.get('subprocess'),
        config,
        () => ({
          policy: api.ctx.has('sandboxPolicy') ? api.ctx.get('sandboxPolicy') : undefined,
          sandbox: api.ctx.has('sandbox') ? api.ctx.get('sandbox') : undefined,
          defaultMode: config.sandboxMode,
        }),
      );
      terminals.registerBackend(made);
      unregister = () => terminals.unregisterBackend(made);
    },
    dispose() {
      unregister?.();
      unregister = undefined;
    },
  };
}
