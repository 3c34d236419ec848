/**
 * The plugin that mounts `ctx.lsp` and the lsp_* tools. A reload keeps the running servers;
 * teardown shuts them down and ends them.
 */
import { type Ctx, DshError, type Owner, type Plugin } from '@dsh/core';
import type {} from '@dsh/sandbox';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { filesOf } from './files.js';
import { LspHost } from './host.js';
import { defaultServers, type LanguageServerConfig, programOf } from './servers.js';
import { createLspTools } from './tools.js';

/**
 * Where `owner`'s language servers run: its sandbox world when its mode is restricted (the same
 * world its bash calls and terminals use), this machine otherwise or without an owner.
 * @throws DshError `SANDBOX_UNAVAILABLE` when a restricted mode has no fence.
 */
function placeFor(ctx: Ctx, owner?: Owner): { runtime: SubprocessRuntime; scope: string; confined?: boolean } {
  const host = ctx.get('subprocess');
  if (!owner || !ctx.has('sandboxPolicy')) return { runtime: host, scope: 'host' };
  const policy = ctx.get('sandboxPolicy');
  const resolved = policy.resolve(owner);
  if (resolved.mode === 'danger-full-access') return { runtime: host, scope: 'host' };
  const sandbox = ctx.has('sandbox') ? ctx.get('sandbox') : undefined;
  const why = sandbox ? sandbox.unavailableReason() : 'no sandbox is mounted';
  if (!sandbox || why !== null) {
    throw new DshError(
      'SANDBOX_UNAVAILABLE',
      `Language servers in sandbox mode "${resolved.mode}" need a fence and there is none: ${why}.`,
      {
        data: { mode: resolved.mode },
      },
    );
  }
  return {
    runtime: sandbox.world(resolved, host).runtime,
    scope: `${resolved.scope ?? 'shared'}:${resolved.mode}`,
    confined: true,
  };
}

/**
 * `servers`, each whose program is missing where the commands run (a remote world without this
 * machine's packages) marked unavailable, with why.
 */
async function whereTheyRun(
  servers: Record<string, LanguageServerConfig>,
  runtime: SubprocessRuntime,
): Promise<Record<string, LanguageServerConfig>> {
  if (runtime.sharesFilesystem !== false) return servers; // this machine's: the defaults checked their packages
  const wanted = Object.entries(servers).filter(([, s]) => !s.unavailable && programOf(s));
  const present = await filesOf(runtime)
    .exists(wanted.map(([, s]) => programOf(s) as string))
    .catch(() => wanted.map(() => true)); // cannot look: told at first use instead
  const out = { ...servers };
  wanted.forEach(([name, s], i) => {
    if (!present[i])
      out[name] = {
        ...s,
        unavailable: `${programOf(s)} is not there where the commands run (a remote world has not this machine's packages); install the server there and configure its command`,
      };
  });
  return out;
}

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
    async setup(api) {
      host ??= new LspHost(
        (owner) => placeFor(api.ctx, owner),
        options.workspace,
        await whereTheyRun({ ...defaultServers(), ...options.servers }, api.ctx.get('subprocess')),
      );
      api.provide('lsp', host);
      // Where no server can run, the tools are not listed (dumpConfig says why, from ctx.lsp.servers).
      if (Object.values(host.servers).every((s) => s.unavailable)) return;
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
