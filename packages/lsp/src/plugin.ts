/**
 * The plugin that mounts `ctx.lsp` and the lsp_* tools. A reload keeps the running servers;
 * teardown shuts them down and ends them.
 */
import { DshError, type Plugin } from '@dsh/core';
import { LspHost } from './host.js';
import { defaultServers, type LanguageServerConfig } from './servers.js';
import { createLspTools } from './tools.js';

/** Plugin name of {@link lspPlugin}. */
export const LSP_PLUGIN = 'lsp';

/** Options of {@link lspPlugin}. */
export interface LspPluginOptions {
  /** Absolute workspace root: tool paths are relative to it. */
  workspace: string;
  /**
   * Language servers by language, replacing the defaults of the same name.
   * @default TypeScript/JavaScript (typescript-language-server) and Python (pyright)
   */
  servers?: Record<string, LanguageServerConfig>;
}

/** @throws DshError `INVALID_ARGUMENT` when `workspace` is not absolute or a server has no command. */
export function lspPlugin(options: LspPluginOptions): Plugin {
  if (typeof options?.workspace !== 'string' || !options.workspace.startsWith('/')) {
    throw new DshError('INVALID_ARGUMENT', 'lspPlugin needs { workspace } as an absolute path.', {
      data: { field: 'workspace' },
    });
  }
  for (const [name, s] of Object.entries(options.servers ?? {})) {
    if (!Array.isArray(s?.command) || s.command.length === 0) {
      throw new DshError('INVALID_ARGUMENT', `language server "${name}" needs a command argv.`, {
        data: { field: 'servers' },
      });
    }
  }
  let host: LspHost | undefined;
  return {
    name: LSP_PLUGIN,
    requires: ['subprocess'],
    setup(api) {
      host ??= new LspHost(() => api.ctx.get('subprocess'), options.workspace, {
        ...defaultServers(),
        ...options.servers,
      });
      api.provide('lsp', host);
      for (const tool of createLspTools(options)) api.registerTool(tool);
    },
    async dispose(reason) {
      if (reason !== 'teardown' || !host) return;
      const h = host;
      host = undefined;
      await h.dispose();
    },
  };
}
