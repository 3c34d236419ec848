/**
 * `ctx.acp`: the configured ACP agents (`{ NAME: { command, env? } }`), each run as a sub-agent
 * per task over ctx.subprocess; files, permission and terminals are served within the asking
 * owner's sandbox policy and through the composition's approver.
 */
import {
  type ApprovalDecision,
  type Approver,
  DshError,
  decisionOf,
  type EscalationRequest,
  type Owner,
} from '@dsh/core';
import type { Sandbox, SandboxPolicyService } from '@dsh/sandbox';
import type { ShellExecutor } from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { AgentSession } from './agent-session.js';
import { openSession } from './open-session.js';
import type { AgentTaskResult } from './session.js';
import { AgentSessions } from './sessions.js';
import type { AgentTaskRun } from './task-run.js';

declare module '@dsh/core' {
  interface ServiceMap {
    /** ACP agents run as sub-agents (agent_task). */
    acp: AcpService;
  }
}

/** One configured ACP agent. */
export interface AcpAgentConfig {
  /** The program and its arguments; it speaks ACP over stdin/stdout (ndjson). */
  command: string[];
  /** Environment entries over the scrubbed parent environment (e.g. an API key the agent needs). @default {} */
  env?: Record<string, string>;
  /** One line on what the agent is for: agent_task's schema shows it to the model. @default none */
  description?: string;
  /**
   * MCP servers the agent is given in each session (`session/new`'s `mcpServers`, stdio ones):
   * `{ name, command: argv, env? }`. They run where the agent runs, in its sandbox. @default []
   */
  mcpServers?: AcpMcpServer[];
  /**
   * Also give the agent dsh's own tools (all but agent_task) as an MCP server named `dsh`, served
   * by this composition for the asking agent: its commands run in the same world and policy as
   * the caller's (a world on this machine; a remote world refuses it). @default false
   */
  shareTools?: boolean;
}

/**
 * Serves dsh's tools to a sub-agent of `owner`: the argv of a stdio MCP server the agent starts
 * (a bridge to a socket in the world's share directory, `world`; null: no world, on this machine).
 */
export type ShareTools = (owner: Owner, world: { shareDir: string; inside: string } | null) => Promise<string[]>;

/** An MCP server handed to a sub-agent. */
export interface AcpMcpServer {
  name: string;
  /** The program and its arguments. */
  command: string[];
  env?: Record<string, string>;
}

/** Permission requests of one owner's tasks waiting for the person at once at most (each holds an agent process). */
export const ACP_MAX_PARKED_PER_OWNER = 4;

/** Most ACP agents one composition may name. */
export const ACP_MAX_AGENTS = 32;

/** What the service reads from the composition at call time. */
export interface AcpServiceDeps {
  subprocess: () => SubprocessRuntime;
  shell: () => ShellExecutor;
  policy: () => SandboxPolicyService | undefined;
  /** The fence: a restricted owner's sub-agent runs in that owner's sandbox world. */
  sandbox: () => Sandbox | undefined;
  approver: Approver | undefined;
  workspace: string;
  /** Serves dsh's tools to agents with `shareTools`. @default none (such an agent fails to start) */
  shareTools?: ShareTools;
}

/** The sub-agent host. */
export class AcpService {
  private readonly sessions = new AgentSessions();
  /** Tasks whose permission request waits for the person's answer. */
  private readonly parked = new Set<AgentTaskRun>();

  /** @throws DshError `INVALID_ARGUMENT` for an agent without a command. */
  constructor(
    readonly agents: Readonly<Record<string, AcpAgentConfig>>,
    private readonly deps: AcpServiceDeps,
  ) {
    const names = Object.keys(agents);
    if (names.length > ACP_MAX_AGENTS) throw new DshError('INVALID_ARGUMENT', `At most ${ACP_MAX_AGENTS} ACP agents.`);
    for (const name of names) {
      const a = agents[name];
      if (
        !Array.isArray(a?.command) ||
        a.command.length === 0 ||
        a.command.some((w) => typeof w !== 'string' || w === '')
      ) {
        throw new DshError('INVALID_ARGUMENT', `ACP agent "${name}" needs a command argv of non-empty strings.`, {
          data: { field: `acp.agents.${name}.command` },
        });
      }
      for (const [i, m] of (a.mcpServers ?? []).entries()) {
        if (
          typeof m?.name !== 'string' ||
          m.name === '' ||
          !Array.isArray(m.command) ||
          m.command.length === 0 ||
          m.command.some((w) => typeof w !== 'string' || w === '')
        ) {
          throw new DshError(
            'INVALID_ARGUMENT',
            `ACP agent "${name}": mcpServers[${i}] needs a name and a command argv.`,
            {
              data: { field: `acp.agents.${name}.mcpServers` },
            },
          );
        }
      }
      if (a.shareTools !== undefined && typeof a.shareTools !== 'boolean') {
        throw new DshError('INVALID_ARGUMENT', `ACP agent "${name}": shareTools must be true or false.`, {
          data: { field: `acp.agents.${name}.shareTools` },
        });
      }
      if (a.description !== undefined && typeof a.description !== 'string') {
        throw new DshError('INVALID_ARGUMENT', `ACP agent "${name}": description must be a string.`, {
          data: { field: `acp.agents.${name}.description` },
        });
      }
    }
  }

  /**
   * Runs `prompt` with agent `name` for `owner`, in session `sessionId` when given (else a new
   * one, kept for follow-ups; the result names it); `onUpdate` sees the live transcript; `permit`
   * decides its permission requests (else the composition's approver, else they are rejected).
   * @throws DshError `ACP_UNKNOWN_AGENT`, `ACP_START_FAILED`, `ACP_UNKNOWN_SESSION`, `ACP_SESSION_ENDED`, `ACP_SESSION_BUSY` (rejections).
   */
  async run(
    owner: Owner,
    name: string,
    prompt: string,
    signal?: AbortSignal,
    onUpdate?: (live: AgentTaskResult) => void,
    sessionId?: string,
    permit?: (request: EscalationRequest) => Promise<boolean>,
  ): Promise<AgentTaskResult> {
    const agent = Object.hasOwn(this.agents, name) ? this.agents[name] : undefined;
    if (!agent) {
      const known = Object.keys(this.agents);
      return Promise.reject(
        new DshError(
          'ACP_UNKNOWN_AGENT',
          `No ACP agent "${name}"; ${known.length ? `configured: ${known.join(', ')}` : 'none is configured (config.acp.agents)'}.`,
        ),
      );
    }
    const first = await this.runOnce(owner, name, agent, prompt, signal, onUpdate, sessionId, permit);
    const r = first.result;
    // A process that died just before this follow-up (not yet seen as ended): loaded again, once.
    if (sessionId && first.loadable && !r.reloaded && r.failure && r.message === '' && r.toolCalls.length === 0) {
      return (await this.runOnce(owner, name, agent, prompt, signal, onUpdate, sessionId, permit)).result;
    }
    return r;
  }

  /** One try of {@link run}: the turn's result, and whether its agent can load the session again. */
  private async runOnce(
    owner: Owner,
    name: string,
    agent: AcpAgentConfig,
    prompt: string,
    signal: AbortSignal | undefined,
    onUpdate: ((live: AgentTaskResult) => void) | undefined,
    sessionId: string | undefined,
    permit: ((request: EscalationRequest) => Promise<boolean>) | undefined,
  ): Promise<{ result: AgentTaskResult; loadable: boolean }> {
    let session: AgentSession | null;
    let reloaded = false;
    if (sessionId) {
      const held = this.sessions.take(owner, name, sessionId);
      if (held instanceof AgentSession) session = held;
      else {
        // Its process ended: a new one of the agent takes the session up again (session/load).
        try {
          session = await this.open(owner, name, agent, signal, held.load);
        } catch (error) {
          this.sessions.loaded(sessionId, null, true);
          throw error;
        }
        this.sessions.loaded(sessionId, session);
        reloaded = session !== null;
      }
    } else session = await this.open(owner, name, agent, signal);
    if (!session) return { result: { stopReason: 'cancelled', message: '', plan: [], toolCalls: [] }, loadable: false };
    const id = sessionId ?? this.sessions.add(owner, name, session);
    const result = await session.turn(prompt, signal, onUpdate, permit);
    // A cancelled turn or a dead agent ends the session; otherwise it waits for a follow-up.
    this.sessions.release(id, result.stopReason !== 'cancelled' && !result.failure);
    return {
      result: { ...result, sessionId: id, ...(reloaded ? { reloaded: true } : {}) },
      loadable: session.loadable,
    };
  }

  /** The composition's approver (decides permission requests no call can ask about). */
  get approver(): Approver | undefined {
    return this.deps.approver;
  }

  /** Notes that `run` waits (or no longer waits) for the person's answer to a permission request. */
  parking(run: AgentTaskRun, parked: boolean): void {
    if (!parked) {
      this.parked.delete(run);
      return;
    }
    this.parked.add(run);
    // Past the bound the oldest waiting request of that owner is rejected (its task goes on).
    const mine = [...this.parked].filter((r) => r.owner === run.owner);
    if (mine.length > ACP_MAX_PARKED_PER_OWNER) mine[0]?.settle(false);
  }

  /**
   * The task of `owner` whose waiting permission request `answered` answers (a retried call
   * bringing the person's answer), settled with that answer; null when it answers none.
   */
  answeredTask(owner: Owner, answered: ((r: EscalationRequest) => ApprovalDecision | undefined) | undefined) {
    if (!answered) return null;
    for (const run of this.parked) {
      if (run.owner !== owner || !run.parked) continue;
      const answer = answered(run.parked.request);
      if (answer === undefined) continue;
      run.settle(decisionOf(answer).approved);
      return run;
    }
    return null;
  }

  /** Ends every sub-agent session of `owner` (or all of them). */
  closeSessions(owner?: Owner): Promise<void> {
    return this.sessions.closeAll(owner);
  }

  /** A new session (or session `load` loaded again) with agent `name` for `owner`. */
  private open(owner: Owner, name: string, agent: AcpAgentConfig, signal?: AbortSignal, load?: string) {
    return openSession(this.deps, owner, name, agent, signal, load);
  }
}
