/**
 * Opening a sub-agent session for an owner: in a restricted mode inside that owner's sandbox
 * world (so the agent's own tools are fenced too), with its configured MCP servers and, with
 * `shareTools`, dsh's own tools; or loading a session of an earlier process of the agent.
 */
import { DshError, type Owner } from '@dsh/core';
import { WORLD_SHARE_DIR, type World } from '@dsh/sandbox';
import { AgentSession } from './agent-session.js';
import type { AcpAgentConfig, AcpServiceDeps } from './service.js';

/**
 * The argv of the `dsh` MCP server of agent `name` (shareTools).
 * @throws DshError `ACP_START_FAILED` when this composition cannot serve it there.
 */
async function sharedTools(deps: AcpServiceDeps, owner: Owner, name: string, world: World | null): Promise<string[]> {
  const serve = deps.shareTools;
  if (!serve) {
    throw new DshError(
      'ACP_START_FAILED',
      `ACP agent ${name} has shareTools, and this composition serves no tools to sub-agents (compose() does); remove shareTools or compose with dsh.`,
    );
  }
  if (world && !world.shareDir) {
    throw new DshError(
      'ACP_START_FAILED',
      `ACP agent ${name} has shareTools, and its world is on another machine, where dsh cannot serve its tools yet; remove shareTools for this world.`,
    );
  }
  return serve(owner, world?.shareDir ? { shareDir: world.shareDir, inside: WORLD_SHARE_DIR } : null);
}

/**
 * A new session with `agent` for `owner` (or session `load` loaded again); null when cancelled.
 * @throws DshError `SANDBOX_UNAVAILABLE` (a restricted mode with no fence), `ACP_START_FAILED` (rejections).
 */
export async function openSession(
  deps: AcpServiceDeps,
  owner: Owner,
  name: string,
  agent: AcpAgentConfig,
  signal?: AbortSignal,
  load?: string,
): Promise<AgentSession | null> {
  const policy = deps.policy()?.resolve(owner);
  let runtime = deps.subprocess();
  let world: World | null = null;
  if (policy && policy.mode !== 'danger-full-access') {
    // The agent's own tools run where it runs: inside the owner's fence, never outside it.
    const fence = deps.sandbox();
    if (!fence?.available()) {
      throw new DshError(
        'SANDBOX_UNAVAILABLE',
        `A sub-agent in sandbox mode ${policy.mode} needs a fence and there is none: ${fence?.unavailableReason() ?? 'no sandbox is mounted'}.`,
      );
    }
    world = fence.world(policy, runtime);
    runtime = world.runtime;
  }
  const mcpServers = [...(agent.mcpServers ?? [])];
  if (agent.shareTools) mcpServers.push({ name: 'dsh', command: await sharedTools(deps, owner, name, world) });
  return AgentSession.open(
    agent.command,
    agent.env ?? {},
    {
      runtime,
      shell: deps.shell,
      sandbox: policy,
      approver: deps.approver,
      agentName: name,
      workspace: deps.workspace,
      mcpServers,
    },
    signal,
    load,
  );
}
