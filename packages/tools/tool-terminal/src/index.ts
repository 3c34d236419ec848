/**
 * @dsh/tool-terminal: terminal_open, terminal_send, terminal_read, terminal_cancel, terminal_close, terminal_list.
 */
export { idArgs, listArgs, openArgs, readArgs, sendArgs } from './args.js';
export { capOutput, EARLIER_MAX_CHARS, renderScreen, renderSend, SEND_OUTPUT_MAX_CHARS, statusLine } from './format.js';
export { TOOL_TERMINAL_PLUGIN, toolTerminalPlugin } from './plugin.js';
export { createTerminalTools, DEFAULT_READ_LIMIT, DEFAULT_SEND_TIMEOUT_MS } from './tools.js';
