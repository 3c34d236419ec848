/**
 * @dsh/bash-local: `LocalBashExecutor`, the local ctx.shell (bash -c over ctx.subprocess).
 */
export { LocalShellProcess, STDERR_CLOSE, STDERR_OPEN } from './background.js';
export type { LocalBashConfig, ResolvedBashConfig } from './config.js';
export {
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_SPILL_BYTES,
  DEFAULT_MAX_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  resolveBashConfig,
} from './config.js';
export type { LocalBashDeps } from './executor.js';
export { LocalBashExecutor } from './executor.js';
export {
  NO_EDITOR_MESSAGE,
  NO_EDITOR_SCRIPT,
  noEditorCommand,
  nonInteractiveEnv,
  writeNoEditor,
} from './non-interactive.js';
export { BASH_LOCAL_PLUGIN, bashLocalPlugin } from './plugin.js';
export { MAX_COMMAND_BYTES } from './resolve-request.js';
