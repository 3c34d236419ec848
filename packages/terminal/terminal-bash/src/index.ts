/**
 * @dsh/terminal-bash: the persistent bash backend (`shell`) of ctx.terminals.
 */
export { BashTerminalBackend, SHELL_BACKEND } from './backend.js';
export type { BashTerminalConfig, ResolvedBashTerminalConfig } from './config.js';
export {
  DEFAULT_IDLE_SILENCE_MS,
  DEFAULT_OPEN_TIMEOUT_MS,
  DEFAULT_SCROLLBACK_CHARS,
  DEFAULT_SHELL_READ_SETTLE_MS,
  DEFAULT_STDIN_SETTLE_MS,
  DEFAULT_TERMINAL_GRACE_MS,
  EMULATOR_BACKLOG_LOW_CHARS,
  EMULATOR_BACKLOG_MAX_CHARS,
  OPENING_MAX_CHARS,
  resolveTerminalConfig,
} from './config.js';
export { PASTE_END, PASTE_START, sendPayload } from './input.js';
export { keyBytes } from './keys.js';
export { TERMINAL_BASH_PLUGIN, terminalBashPlugin } from './plugin.js';
export type { PromptMarker } from './rcfile.js';
export { newNonce, parseMarker, rcText } from './rcfile.js';
export type { Mark, ScreenHooks, ScreenSnapshot } from './screen.js';
export { EMULATOR_SCROLLBACK_ROWS, Screen } from './screen.js';
export { Scrollback } from './scrollback.js';
export { BashSession } from './session.js';
export type { XtermModule } from './xterm-loader.js';
export { loadXterm } from './xterm-loader.js';
