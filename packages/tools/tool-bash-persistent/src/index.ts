/**
 * @dsh/tool-bash-persistent: `bash` in the agent's own persistent shell.
 */

export type { PersistentBashOptions } from './persistent-bash.js';
export {
  createPersistentBashTool,
  DEFAULT_TIMEOUT_MS,
  INTERRUPT_WAIT_MS,
  MAX_TIMEOUT_MS,
  PERSISTENT_SESSION_NAME,
} from './persistent-bash.js';
export { TOOL_BASH_PERSISTENT_PLUGIN, toolBashPersistentPlugin } from './plugin.js';
