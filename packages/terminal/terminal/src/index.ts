/**
 * @dsh/terminal: ctx.terminals — persistent interactive sessions owned by agents.
 */

export { checkKeys, isCharacterKey, KEY_NAMES, MAX_KEYS_PER_SEND } from './keys.js';
export {
  DEFAULT_COLS,
  DEFAULT_ROWS,
  MAX_CLOSED_REMEMBERED,
  MAX_SCROLLBACK_PAGE,
  MAX_SEND_TIMEOUT_MS,
  MAX_SESSIONS_PER_OWNER,
  MAX_TYPE_CHARS,
  TYPING_HOLD_MS,
} from './limits.js';
export { TERMINAL_PLUGIN, terminalPlugin } from './plugin.js';
export type { TerminalSendListener } from './terminal-service.js';
export { DEFAULT_CANCEL_WAIT_MS, TerminalService } from './terminal-service.js';
export type {
  OpenRequest,
  ScreenView,
  ScrollbackPage,
  SendInput,
  SendResult,
  TerminalBackend,
  TerminalId,
  TerminalInfo,
  TerminalSession,
  TerminalWatch,
  TerminalWatchEvent,
  WaitReason,
} from './types.js';
export type { TerminalTypeListener } from './typing.js';
export { checkOpen, checkPage, checkSend, checkWait } from './validate.js';
