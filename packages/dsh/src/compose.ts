/**
 * `compose()`: the front door. Mounts a preset, and exposes ctx, agents, tools, reload,
 * dumpConfig and dispose (DESIGN §8).
 */
import {
  Composition,
  type Ctx,
  createOwner,
  DshError,
  isDshError,
  type Owner,
  type ToolCallOptions,
  type ToolInfo,
  type ToolResult,
} from '@dsh/core';
import type { JobInfo } from '@dsh/jobs';
import type { NetRecord } from '@dsh/sandbox';
import type {} from '@dsh/terminal';
import { CONFIG_KEYS, type DshConfig, type ResolvedDshConfig, resolveDshConfig } from './config.js';
import { SessionLog } from './log/session-log.js';
import { type OutputPlace, OutputStore, RemoteOutputPlace } from './output-store.js';
import { type PresetName, presetPlugins } from './presets.js';
import { SharedTools } from './share-tools.js';
import { checkKeys } from './strict-keys.js';
import { DSH_VERSION } from './version.js';
import { type OpenWorld, openRemoteWorld, prepareRemote } from './world.js';

/** Retained output copies are measured against the budget at most this often (a directory scan). */
export const OUTPUT_BUDGET_CHECK_MS = 1_000;

/** Options of {@link compose}. */
export interface ComposeOptions {
  /** Which plugins to mount. @default 'base' */
  preset?: PresetName;
  /** See {@link DshConfig}. @default {} */
  config?: DshConfig;
}

/** A running composition. */
export interface Dsh {
  /** The mounted services (ctx.subprocess, ctx.shell, ctx.jobs, …). */
  readonly ctx: Ctx;
  /** Mints a new agent identity; jobs and terminals are visible to their owner only. */
  createAgent(name: string): Owner;
  readonly tools: {
    /** Tools as a model sees them. */
    list(): ToolInfo[];
    /**
     * Calls a tool for an agent. Bad arguments give `isError`, never a throw.
     * @throws DshError `INVALID_ARGUMENT` when `agent` was not made by `createAgent`.
     */
    call(agent: Owner, name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  };
  /** Re-runs one plugin (e.g. 'bash-local'); background processes and jobs live on. */
  reload(plugin: string): Promise<void>;
  /**
   * Calls `listener` with every session-log record written from now on (tool calls, job ends,
   * terminal sends), as written to the file. Never called when the log is off. Returns the unsubscribe.
   */
  onLogRecord(listener: (record: Record<string, unknown>) => void): () => void;
  /** Mounted plugins, services, tools and the resolved configuration, as plain JSON. */
  dumpConfig(): Record<string, unknown>;
  /** Closes every terminal the agent holds and waits for their cleanup (jobs stay until teardown). */
  disposeAgent(agent: Owner): Promise<void>;
  /**
   * Ends everything the agent holds: its terminals closed, its queued and running jobs killed,
   * its sub-agent sessions ended, its sandbox world ended (a later call of the agent gets a fresh one). For a front door whose
   * session ended (`dsh mcp --http`).
   */
  endAgent(agent: Owner): Promise<void>;
  /** Calls `listener` when any agent's background job ends; returns the unsubscribe. */
  onJobEnd(listener: (owner: Owner, job: JobInfo) => void): () => void;
  /** Teardown: every process, job and PTY ended and joined. Idempotent. */
  dispose(): Promise<void>;
}

function dump(
  composition: Composition,
  preset: PresetName,
  config: ResolvedDshConfig,
  log: SessionLog | null,
  output: OutputPlace,
  world: OpenWorld | null,
) {
  const subprocess = composition.ctx.subprocess as { containment?: string } | undefined;
  return {
    preset,
    plugins: composition.plugins(),
    services: composition.ctx.keys(),
    tools: composition.tools.list().map((t) => t.name),
    config: {
      workspace: config.workspace,
      shell: (composition.ctx.shell as { config?: unknown } | undefined)?.config ?? config.shell,
      jobs: config.jobs,
      subprocess: { containment: config.subprocess.containment, inEffect: subprocess?.containment ?? null },
      approver: config.approver ? 'custom' : 'none (escalations are denied)',
      sessionLog: log ? { root: config.sessionLog?.dir, session: log.id, dir: log.dir, error: log.error } : null,
      output: { dir: output.dir, keep: config.output.keep, maxBytes: config.output.maxBytes },
      // The language servers the config adds or replaces (the defaults serve the rest).
      lsp: config.lsp,
    },
    sandbox: sandboxDump(composition, config),
    world: worldDump(world),
    lsp: lspDump(composition.ctx.lsp),
  };
}

/** The language servers by language, and why each that cannot run where the commands run cannot (its tools are then not listed). */
function lspDump(lsp: unknown): { servers: string[]; unavailable: Record<string, string> } | null {
  const servers = (lsp as { servers?: Record<string, { unavailable?: string }> } | undefined)?.servers;
  if (!servers) return null;
  const unavailable = Object.entries(servers).filter(([, s]) => s.unavailable);
  return {
    servers: Object.keys(servers),
    unavailable: Object.fromEntries(unavailable.map(([n, s]) => [n, String(s.unavailable)])),
  };
}

/** The world, and what the remote said about itself. */
function worldDump(world: OpenWorld | null): Record<string, unknown> {
  if (!world) return { kind: 'local' };
  const { info } = world;
  const sandbox = info.sandbox as { bwrapPath?: string; unavailable?: string | null } | undefined;
  return {
    kind: 'remote',
    connect: world.connect,
    connected: !world.runtime.disconnected,
    boot: world.boot,
    connectMs: world.connectMs,
    remote: {
      hostname: info.hostname,
      os: info.os,
      platform: info.platform,
      arch: info.arch,
      node: info.node,
      uid: info.uid,
      home: info.home,
      containment: info.containment,
      fence: sandbox?.unavailable === null ? 'bubblewrap' : null,
      fenceUnavailable: sandbox?.unavailable ?? null,
    },
  };
}

/** The remote world's workspace and output place, checked and made there. */
async function remotePlace(world: OpenWorld, config: ResolvedDshConfig): Promise<OutputPlace> {
  if (!config.workspaceGiven) config.workspace = world.info.home ? String(world.info.home) : '/';
  const root = config.outputDirGiven
    ? config.output.dir
    : `${String(world.info.tmpdir ?? '/tmp')}/dsh-${String(world.info.uid ?? 'user')}`;
  config.output.dir = root;
  const place = new RemoteOutputPlace(root, Number(world.info.pid));
  await prepareRemote(world, config.workspace, place);
  // A world made again after a loss gets the same output directory (swept there as a dead
  // server's, or never there: a new container).
  world.onRemade = (again) => prepareRemote(again, config.workspace, place);
  return place;
}

function sandboxDump(composition: Composition, config: ResolvedDshConfig): Record<string, unknown> {
  const fence = composition.ctx.sandbox;
  const why = fence ? fence.unavailableReason() : 'no sandbox plugin is mounted';
  const mode = config.sandbox.mode;
  const worlds = (fence as { worldsInUse?: () => unknown[] } | undefined)?.worldsInUse?.() ?? [];
  const policy = composition.ctx.has('sandboxPolicy') ? composition.ctx.get('sandboxPolicy') : undefined;
  return {
    mode,
    // true, false, or the hosts a world reaches by name through its proxy (the effective list).
    network: mode === 'danger-full-access' ? true : config.sandbox.network,
    fence: why === null ? 'bubblewrap' : null,
    // What every world of a restricted mode hides and how far it may grow.
    ...(policy
      ? {
          denyRead: policy.denyRead,
          limits: policy.limits,
          tmpBytes: policy.tmpBytes,
          // Where programs' state goes in a restricted mode.
          home: policy.privateHome ? 'private (seeded from $HOME, removed with the world)' : 'read-only',
        }
      : {}),
    worlds,
    note:
      mode === 'danger-full-access'
        ? 'commands run unconfined (danger-full-access)'
        : why === null
          ? `commands run inside bubblewrap (${mode})`
          : `no fence: restricted commands will refuse to run (SANDBOX_UNAVAILABLE): ${why}`,
  };
}

/**
 * Mounts a preset.
 * @throws DshError `INVALID_ARGUMENT` (bad config or preset),
 *   or a plugin's setup failure.
 */
export async function compose(options: ComposeOptions = {}): Promise<Dsh> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new DshError('INVALID_ARGUMENT', 'compose() takes { preset?, config? }.', { data: { field: 'options' } });
  }
  const misplaced = Object.fromEntries(CONFIG_KEYS.map((k) => [k, `config.${k}`]));
  checkKeys(options as Record<string, unknown>, ['preset', 'config'], '', misplaced);
  const preset = options.preset ?? 'base';
  const config = resolveDshConfig(options.config);
  const world =
    config.world.kind === 'remote'
      ? await openRemoteWorld(config.world, config.subprocess.containment === 'session' ? 'session' : 'auto')
      : null;
  let output: OutputPlace;
  let composition: Composition;
  // The session log opens after the plugins: their proxies' records reach it through this.
  const netRecords: { to: ((scope: string, record: NetRecord) => void) | null } = { to: null };
  // Sub-agents with shareTools call this composition's tools (once it exists).
  const shared = new SharedTools((owner) => {
    const policy = composition?.ctx.has('sandboxPolicy') ? composition.ctx.get('sandboxPolicy').resolve(owner) : null;
    return JSON.stringify(policy ? [policy.mode, policy.writableRoots, policy.network, policy.hosts ?? null] : null);
  });
  try {
    if (world) output = await remotePlace(world, config);
    else {
      const store = new OutputStore(config.output.dir, config.output);
      output = store;
      // A caller's spill directory gets a directory of this composition's own, removed with it.
      if (config.shell.spillDir) config.shell.spillDir = store.ownSpillIn(config.shell.spillDir);
    }
  } catch (error) {
    await world?.close();
    throw error;
  }
  try {
    composition = await Composition.create(
      presetPlugins(preset, config, output, world, (scope, record) => netRecords.to?.(scope, record), shared.serve),
    );
  } catch (error) {
    await shared.dispose();
    output.dispose();
    await world?.close();
    throw error;
  }
  let log: SessionLog | null = null;
  try {
    if (config.sessionLog) log = openLog(composition, config, preset);
    const policy = composition.ctx.has('sandboxPolicy') ? composition.ctx.get('sandboxPolicy') : undefined;
    const opened = log;
    if (opened) {
      netRecords.to = (scope, r) => opened.network({ agent: policy?.nameOf(scope) ?? scope, ...r });
    }
  } catch (error) {
    await composition.dispose();
    output.dispose();
    throw error;
  }
  let budgetCheckedAt = 0;
  let disposed = false;
  const made: Dsh = {
    ctx: composition.ctx,
    createAgent: (name: string) => createOwner(name),
    tools: {
      list: () => composition.tools.list(),
      async call(agent, name, args, callOptions = {}) {
        if (disposed)
          throw new DshError('DISPOSED', 'this dsh composition was disposed; compose() a new one to run tools.');
        const started = Date.now();
        const result = await composition.tools.call(agent, name, args, callOptions);
        if (started - budgetCheckedAt >= OUTPUT_BUDGET_CHECK_MS) {
          budgetCheckedAt = started;
          output.enforceBudget();
        }
        log?.toolCall({
          agent: agent.name,
          tool: name,
          args,
          text: result.text,
          isError: result.isError,
          durationMs: Date.now() - started,
        });
        return result;
      },
    },
    reload: (plugin) => composition.reload(plugin),
    disposeAgent: async (agent) => {
      const terminals = composition.ctx.terminals;
      if (terminals) await terminals.disposeOwner(agent);
    },
    endAgent: async (agent) => {
      const { terminals, jobs } = composition.ctx;
      const live = (jobs?.list(agent) ?? []).filter((j) => j.state === 'queued' || j.state === 'running');
      const acp = composition.ctx.has('acp') ? composition.ctx.get('acp') : undefined;
      await Promise.all([
        terminals?.disposeOwner(agent),
        ...live.map((j) => jobs?.kill(agent, j.id).catch(() => false)),
        acp?.closeSessions(agent),
        shared.release(agent),
      ]);
      const policy = composition.ctx.has('sandboxPolicy') ? composition.ctx.get('sandboxPolicy') : undefined;
      const scope = policy?.scopeIf(agent);
      if (scope) await composition.ctx.sandbox?.disposeScope?.(scope);
    },
    onJobEnd: (listener) => composition.ctx.jobs?.onEnd(listener) ?? (() => undefined),
    onLogRecord: (listener) => log?.onRecord(listener) ?? (() => undefined),
    dumpConfig: () => dump(composition, preset, config, log, output, world),
    dispose: async () => {
      disposed = true;
      try {
        await shared.dispose();
        await composition.dispose();
      } finally {
        output.dispose();
        await log?.close();
      }
    },
  };
  shared.attach(made.tools);
  return made;
}

/** Opens the session log and subscribes it to job ends and terminal sends. */
function openLog(composition: Composition, config: ResolvedDshConfig, preset: PresetName): SessionLog {
  const root = (config.sessionLog as { dir: string }).dir;
  let log: SessionLog;
  try {
    log = SessionLog.open(root, {
      preset,
      workspace: config.workspace,
      sandbox: config.sandbox.mode,
      version: DSH_VERSION,
    });
  } catch (error) {
    if (isDshError(error, 'UNSAFE_DIRECTORY')) throw error; // its message says what to do
    throw new DshError('SESSION_LOG_FAILED', `The session log cannot be written under ${root}: ${String(error)}`, {
      cause: error,
      data: { root },
    });
  }
  const { jobs, terminals } = composition.ctx;
  jobs?.onEnd((owner, info) =>
    log.jobEnd({
      agent: owner.name,
      jobId: info.id,
      title: info.title,
      state: info.state,
      text: info.result?.text ?? '',
    }),
  );
  terminals?.onSend((owner, e) =>
    log.terminalSend({
      agent: owner.name,
      terminalId: e.terminalId,
      input: e.input,
      output: e.result.output,
      reason: e.result.reason,
      exitCode: e.result.commandExitCode,
    }),
  );
  terminals?.onType((owner, e) => log.terminalKeys({ agent: owner.name, terminalId: e.terminalId, input: e.input }));
  return log;
}
