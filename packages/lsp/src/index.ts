/**
 * @dsh/lsp: `ctx.lsp`, language servers over ctx.subprocess raw pipes (DESIGN §16), and the
 * lsp_diagnostics / lsp_definition / lsp_references / lsp_hover / lsp_symbols tools.
 */

export type { FileChange } from './edits.js';
export { applyEdits, LSP_EDIT_MAX_FILES, renameSymbol, unifiedDiff } from './edits.js';
export type { FileAccess } from './files.js';
export { filesOf, LSP_MAX_FILE_BYTES } from './files.js';
export type { Diagnostic, Place, SymbolInfo } from './host.js';
export {
  DIAGNOSTICS_WAIT_MS,
  LspHost,
  QUERY_SETTLE_WAIT_MS,
  RESTART_BACKOFF_MAX_MS,
  RESTART_BACKOFF_MS,
} from './host.js';
export type { LspPluginOptions } from './plugin.js';
export { LSP_PLUGIN, lspPlugin } from './plugin.js';
export { createRenameTool, LSP_DIFF_MAX_CHARS } from './rename-tool.js';
export { LSP_INITIALIZE_TIMEOUT_MS, LSP_REQUEST_TIMEOUT_MS, LSP_SHUTDOWN_MS, LSP_STDERR_TAIL_BYTES } from './server.js';
export type { LanguageServerConfig } from './servers.js';
export { defaultServers } from './servers.js';
export { createLspTools, LSP_MAX_ITEMS } from './tools.js';
