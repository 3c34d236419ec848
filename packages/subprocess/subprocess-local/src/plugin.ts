/**
 * The plugin that mounts `LocalSubprocessRuntime` as `ctx.subprocess`.
 */
import { type Plugin, persistentServicePlugin } from '@dsh/core';
import { LocalSubprocessRuntime, type LocalSubprocessRuntimeOptions } from './local-runtime.js';

/** Plugin name of {@link subprocessLocalPlugin}. */
export const SUBPROCESS_LOCAL_PLUGIN = 'subprocess-local';

/**
 * Provides `ctx.subprocess`. A reload of this plugin keeps the same runtime, so live processes
 * survive it; teardown terminates and joins every process the runtime started.
 */
export function subprocessLocalPlugin(options: LocalSubprocessRuntimeOptions = {}): Plugin {
  return persistentServicePlugin({
    name: SUBPROCESS_LOCAL_PLUGIN,
    key: 'subprocess',
    create: () => new LocalSubprocessRuntime(options),
    dispose: (runtime) => runtime.dispose(),
  });
}
