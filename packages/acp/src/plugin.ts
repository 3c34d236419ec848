/**
 * The plugin that mounts `ctx.acp` and the agent_task tool.
 */
import type { Approver, Plugin } from '@dsh/core';
import { type AcpAgentConfig, AcpService, type ShareTools } from './service.js';
import { createAgentTaskTool } from './tool.js';

/** Plugin name of {@link acpPlugin}. */
export const ACP_PLUGIN = 'acp';

/** Options of {@link acpPlugin}. */
export interface AcpPluginOptions {
  /** Absolute workspace: the sub-agent's session cwd and its terminals' default cwd. */
  workspace: string;
  /** The agents by name. */
  agents: Record<string, AcpAgentConfig>;
  /** Decides the agents' permission requests. @default none (every request is rejected) */
  approver?: Approver;
  /** Serves dsh's tools to agents with `shareTools` (compose() gives it). @default none */
  shareTools?: ShareTools;
}

/** @throws DshError `INVALID_ARGUMENT` for a bad agent entry. */
export function acpPlugin(options: AcpPluginOptions): Plugin {
  let service: AcpService | undefined;
  return {
    name: ACP_PLUGIN,
    requires: ['subprocess', 'shell'],
    setup(api) {
      service ??= new AcpService(options.agents, {
        subprocess: () => api.ctx.get('subprocess'),
        shell: () => api.ctx.get('shell'),
        policy: () => (api.ctx.has('sandboxPolicy') ? api.ctx.get('sandboxPolicy') : undefined),
        sandbox: () => (api.ctx.has('sandbox') ? api.ctx.get('sandbox') : undefined),
        approver: options.approver,
        workspace: options.workspace,
        ...(options.shareTools ? { shareTools: options.shareTools } : {}),
      });
      api.provide('acp', service);
      api.registerTool(createAgentTaskTool(options.agents));
    },
    // Every live sub-agent session ends with the plugin (its processes with it).
    dispose: () => service?.closeSessions(),
  };
}
