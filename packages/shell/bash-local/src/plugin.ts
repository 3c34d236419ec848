/**
 * The plugin that mounts `LocalBashExecutor` as `ctx.shell`.
 */
import type { Plugin } from '@dsh/core';
import type {} from '@dsh/sandbox';
import type { LocalBashConfig } from './config.js';
import { LocalBashExecutor } from './executor.js';

/** Plugin name of {@link bashLocalPlugin}. */
export const BASH_LOCAL_PLUGIN = 'bash-local';

/**
 * Provides `ctx.shell` over `ctx.subprocess`. Background processes belong to ctx.subprocess,
 * so a reload of this plugin leaves them running; composition teardown ends them.
 */
export function bashLocalPlugin(config: LocalBashConfig = {}): Plugin {
  return {
    name: BASH_LOCAL_PLUGIN,
    requires: ['subprocess'],
    setup(api) {
      const sandbox = api.ctx.has('sandbox') ? api.ctx.get('sandbox') : undefined;
      api.provide('shell', new LocalBashExecutor({ subprocess: api.ctx.get('subprocess'), sandbox }, config));
    },
  };
}
