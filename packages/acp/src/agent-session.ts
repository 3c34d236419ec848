/**
 * One live ACP agent session: the agent spawned through ctx.subprocess (stdin pipe, stdout pipe
 * carrying ndjson, stderr collected for failure reports), initialized, given a session in the
 * workspace; then any number of turns, one at a time, until it is closed (the connection ends,
 * its terminals are released and its tree is ended). Its process ending, or output that is not
 * JSON-RPC before it answered, is the failure it is, at once (agent-failure.ts).
 */
import { Readable, Writable } from 'node:stream';
import { type McpServerStdio, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { DshError, type EscalationRequest, settleWithin } from '@dsh/core';
import type { SubprocessHandle, SubprocessOutcome } from '@dsh/subprocess';
import { ACP_STDERR_TAIL_BYTES, describeExit, watchStdout } from './agent-failure.js';
import { clientApp, type TurnState } from './client-handlers.js';
import { filesOf } from './files.js';
import { ACP_CANCEL_GRACE_MS, ACP_START_TIMEOUT_MS, type AgentTaskResult, type TaskContext } from './session.js';
import { AcpTerminals } from './terminals.js';

type Ctx = Parameters<Parameters<ReturnType<typeof clientApp>['connectWith']>[1]>[0];

/** Rejects with `code` once `handle` exited, describing how. */
function exitOf(handle: SubprocessHandle, code: string, stderr: () => string): Promise<never> {
  return handle.exit.then((outcome: SubprocessOutcome) => {
    throw new DshError(code, describeExit(outcome, stderr()), {
      data: { exitCode: outcome.exitCode, signal: outcome.signal },
    });
  });
}

/** A live session with an ACP agent. */
export class AgentSession {
  /** Epoch ms of the last turn's end (or the start). */
  lastUsed = Date.now();
  private closed: Promise<void> | undefined;
  private exited = false;

  private constructor(
    /** The agent's own id of the session. */
    readonly sessionId: string,
    /** The agent offers `session/load`: a later process of it can take the session up again. */
    readonly loadable: boolean,
    private readonly ctx: Ctx,
    private readonly handle: SubprocessHandle,
    private readonly stderr: () => string,
    private readonly endConnection: () => void,
    private readonly terminals: AcpTerminals,
    private readonly stdin: Writable,
    /** The turn running now, shared with the client handlers that gather into it. */
    private readonly turnNow: { state: TurnState | null },
  ) {
    void handle.exit.then(() => {
      this.exited = true;
    });
  }

  /** A turn is running. */
  get busy(): boolean {
    return this.turnNow.state !== null;
  }

  /** The agent's process still runs and the session was not closed. */
  get alive(): boolean {
    return this.closed === undefined && !this.exited;
  }

  /**
   * Starts `command` and opens a session (or loads session `load` of an earlier process of the
   * agent, `session/load`); null when `signal` aborted the start.
   * @throws DshError `ACP_START_FAILED` with the reason (rejection).
   */
  static async open(
    command: readonly string[],
    env: Record<string, string>,
    task: TaskContext,
    signal?: AbortSignal,
    load?: string,
  ): Promise<AgentSession | null> {
    const handle = task.runtime.spawn({
      argv: command,
      cwd: task.workspace,
      env,
      stdin: { kind: 'pipe' },
      stdout: { kind: 'pipe' },
      stderr: { kind: 'collect', maxBytes: ACP_STDERR_TAIL_BYTES },
      graceMs: ACP_CANCEL_GRACE_MS,
    });
    const stdin = handle.stdin as Writable;
    stdin.on('error', () => undefined);
    let starting = true;
    const { stream: stdout, notAcp } = watchStdout(handle.stdout as Readable, () => starting);
    const stderr = (): string => handle.stderrReader?.read(0).text ?? '';
    const terminals = new AcpTerminals(task.shell, () => task.sandbox, task.workspace);
    const turnNow: { state: TurnState | null } = { state: null };
    const app = clientApp(task, filesOf(task.runtime), terminals, () => turnNow.state);
    let endConnection: () => void = () => undefined;
    const ending = new Promise<void>((resolve) => {
      endConnection = resolve;
    });
    let gotCtx: (ctx: Ctx) => void = () => undefined;
    const ctxReady = new Promise<Ctx>((resolve) => {
      gotCtx = resolve;
    });
    const stream = ndJsonStream(
      Writable.toWeb(stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
    );
    const connection = app.connectWith(stream, async (ctx) => {
      gotCtx(ctx);
      await ending;
    });
    connection.catch(() => undefined);
    const ended = exitOf(handle, 'ACP_START_FAILED', stderr);
    ended.catch(() => undefined);
    const foreign = notAcp.then((line) => {
      throw new DshError(
        'ACP_START_FAILED',
        `it is not an ACP agent: its first output line was not JSON-RPC: ${JSON.stringify(line)}`,
      );
    });
    foreign.catch(() => undefined);
    const abandoned = new Promise<null>((resolve) => {
      if (signal?.aborted) resolve(null);
      else signal?.addEventListener('abort', () => resolve(null), { once: true });
    });
    const start = async () => {
      const ctx = await ctxReady;
      const hello = await ctx.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'dsh', version: '0.1.0' },
      });
      const mcpServers: McpServerStdio[] = (task.mcpServers ?? []).map((m) => ({
        name: m.name,
        command: m.command[0] as string,
        args: m.command.slice(1),
        env: Object.entries(m.env ?? {}).map(([n, value]) => ({ name: n, value })),
      }));
      const loadable = hello.agentCapabilities?.loadSession === true;
      if (load !== undefined) {
        if (!loadable) throw new DshError('ACP_START_FAILED', 'the agent no longer offers session/load');
        await ctx.request(methods.agent.session.load, { sessionId: load, cwd: task.workspace, mcpServers });
        return { ctx, sessionId: load, loadable };
      }
      const made = await ctx.request(methods.agent.session.new, { cwd: task.workspace, mcpServers });
      return { ctx, sessionId: made.sessionId, loadable };
    };
    try {
      const opened = await settleWithin(
        Promise.race([start(), abandoned, ended, foreign]),
        ACP_START_TIMEOUT_MS,
        () => {
          throw new DshError('ACP_START_FAILED', 'no session within the start timeout');
        },
      );
      starting = false;
      const session = opened
        ? new AgentSession(
            opened.sessionId,
            opened.loadable,
            opened.ctx,
            handle,
            stderr,
            endConnection,
            terminals,
            stdin,
            turnNow,
          )
        : null;
      if (!session) {
        await AgentSession.shut(handle, terminals, endConnection, stdin);
        return null;
      }
      return session;
    } catch (error) {
      let why = error instanceof Error ? error.message : String(error);
      // The pipe broke first (EPIPE, connection closed): the process's end says why, when it ended.
      if (!(error instanceof DshError)) {
        const facts = await settleWithin(handle.exit, ACP_CANCEL_GRACE_MS, () => null);
        if (facts) why = describeExit(facts, stderr());
      }
      await AgentSession.shut(handle, terminals, endConnection, stdin);
      throw new DshError(
        'ACP_START_FAILED',
        `The ACP agent ${task.agentName} (${command.join(' ')}) did not start a session: ${why.replace(/\.$/, '')}.`,
        { data: { ...((error as DshError).data ?? {}) } },
      );
    }
  }

  /**
   * One turn: `prompt`, gathered until it ends; a cancel sends `session/cancel` (past the grace it
   * counts as cancelled). When the agent dies during it, the result keeps what it produced and
   * says how it died (`failure`).
   */
  async turn(
    prompt: string,
    signal?: AbortSignal,
    onUpdate?: (live: AgentTaskResult) => void,
    permit?: (request: EscalationRequest) => Promise<boolean>,
  ): Promise<AgentTaskResult> {
    if (this.turnNow.state)
      throw new DshError('ACP_SESSION_BUSY', `session ${this.sessionId} is in a turn; wait for it to end.`);
    const result: AgentTaskResult = { stopReason: 'unknown', message: '', plan: [], toolCalls: [] };
    this.turnNow.state = { result, calls: new Map(), onUpdate, permit };
    let graceOver: () => void = () => undefined;
    const cancelled = new Promise<{ stopReason: string }>((resolve) => {
      graceOver = () => {
        this.unresponsive = true; // it had its grace: its tree is ended without another wait
        resolve({ stopReason: 'cancelled' });
      };
    });
    const onAbort = (): void => {
      void this.ctx.notify(methods.agent.session.cancel, { sessionId: this.sessionId });
      setTimeout(graceOver, ACP_CANCEL_GRACE_MS).unref();
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const died = exitOf(this.handle, 'ACP_AGENT_FAILED', this.stderr);
    died.catch(() => undefined);
    try {
      const turn = this.ctx.request(methods.agent.session.prompt, {
        sessionId: this.sessionId,
        prompt: [{ type: 'text', text: prompt }],
      });
      result.stopReason = (await Promise.race([turn, cancelled, died])).stopReason;
    } catch (error) {
      // Died mid-turn: what the turn produced is kept, with how the agent ended.
      const facts = await settleWithin(this.handle.exit, ACP_CANCEL_GRACE_MS, () => null);
      const how = facts ? describeExit(facts, this.stderr()) : error instanceof Error ? error.message : String(error);
      result.failure = { message: how, exitCode: facts?.exitCode ?? null, signal: facts?.signal ?? null };
      result.stopReason = 'failed';
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.turnNow.state = null;
      this.lastUsed = Date.now();
    }
    return result;
  }

  /** A cancelled turn's agent did not answer within the grace. */
  private unresponsive = false;

  /** Ends the session: the connection, its terminals, the agent's tree. Idempotent. */
  close(): Promise<void> {
    this.closed ??= AgentSession.shut(
      this.handle,
      this.terminals,
      this.endConnection,
      this.stdin,
      this.unresponsive ? 0 : ACP_CANCEL_GRACE_MS,
    );
    return this.closed;
  }

  private static async shut(
    handle: SubprocessHandle,
    terminals: AcpTerminals,
    endConnection: () => void,
    stdin: Writable,
    exitWaitMs: number = ACP_CANCEL_GRACE_MS,
  ): Promise<void> {
    endConnection();
    await terminals.dispose();
    stdin.end();
    // An agent that ends by itself once its input closes gets a moment; then its tree is ended.
    if (exitWaitMs > 0) await settleWithin(handle.exit, exitWaitMs, () => undefined);
    await handle.terminate();
  }
}
