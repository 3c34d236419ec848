/**
 * @dsh/terminal: ctx.terminals — persistent interactive sessions owned by agents.
 */
export {
  DEFAULT_COLS,
  DEFAULT_ROWS,
  MAX_CLOSED_REMEMBERED,
  MAX_SCROLLBACK_PAGE,
  MAX_SEND_TIMEOUT_MS,
  MAX_SESSIONS_PER_OWNER,
} from './limits.js';
export { TERMINAL_PLUGIN, terminalPlugin } from './plugin.js';
export type { TerminalSendListener } from './terminal-service.js';
export { TerminalService } from './terminal-service.js';
export type {
  OpenRequest,
  ScrollbackPage,
  SendResult,
  TerminalBackend,
  TerminalId,
  TerminalInfo,
  TerminalSession,
  WaitReason,
} from './types.js';
export { checkOpen, checkPage, checkSend } from './validate.js';
