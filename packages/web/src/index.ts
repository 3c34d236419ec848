/**
 * @dsh/web: a composition's terminals, jobs and session log in a browser, live (`dsh web`,
 * `dsh mcp --web`).
 */
export { hostAllowed, isLoopback, originAllowed } from './auth.js';
export { badged } from './commands.js';
export type { WebHost } from './host.js';
export { contentSecurityPolicy } from './http.js';
export { KeyQueue } from './keyboard.js';
export {
  WEB_CLOSE_GRACE_MS,
  WEB_COMMAND_MAX_CHARS,
  WEB_DEFAULT_HOST,
  WEB_DEFAULT_PORT,
  WEB_JOB_CHUNK_MAX_CHARS,
  WEB_KEY_WAIT_MS,
  WEB_LOG_BACKLOG,
  WEB_LOG_RECORD_MAX_CHARS,
  WEB_MAX_CLIENTS,
  WEB_MESSAGE_MAX_BYTES,
  WEB_SOCKET_BUFFER_MAX_BYTES,
  WEB_TERMINAL_COLS,
  WEB_TERMINAL_ROWS,
  WEB_TICK_MS,
  WEB_TOKEN_BYTES,
  WEB_UNACKED_MAX_CHARS,
} from './limits.js';
export { forPage } from './log-feed.js';
export type { ClientMessage, JobRow, ServerMessage, TerminalRow } from './protocol.js';
export { serveWeb, type WebOptions, type WebServer } from './server.js';
