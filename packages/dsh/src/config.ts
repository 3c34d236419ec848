/**
 * `compose` configuration (DESIGN §8): keys, defaults, validation.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { AcpAgentConfig } from '@dsh/acp';
import type { LocalBashConfig } from '@dsh/bash-local';
import type { Approver, EscalationRequest } from '@dsh/core';
import { DshError } from '@dsh/core';
import type { JobServiceOptions } from '@dsh/jobs';
import { checkNetworkSetting, type NetworkSetting, type SandboxMode } from '@dsh/sandbox';
import { defaultOutputRoot, OUTPUT_BUDGET_BYTES } from './output-store.js';
import { checkKeys } from './strict-keys.js';
import type { WorldConfig } from './world.js';

export type { EscalationRequest };

/** Sandbox options of a composition. */
export interface SandboxConfig {
  /** The mode agents run in. @default 'workspace-write' */
  mode?: SandboxMode;
  /**
   * Network in restricted modes: false (none), true (all of it, through a namespace of the
   * world's own), or hosts by name: `{ allow: ["registry.npmjs.org", "*.github.com", "host:port"],
   * deny?, allowPrivate?, pin? }` — the world reaches only those, through a proxy on the host that
   * resolves names itself and refuses private addresses (deny wins; `pin` maps a name to a fixed
   * `address:port`). @default false
   */
  network?: NetworkSetting;
  /** Absolute path of bubblewrap. @default '/usr/bin/bwrap' */
  bwrapPath?: string;
  /**
   * Paths no confined command may read (absolute or `~/…`); replaces the default list of
   * credential stores (`DEFAULT_DENY_READ`: ~/.ssh, ~/.aws, ~/.dsh, …). The session log directory
   * is always hidden too. @default DEFAULT_DENY_READ
   */
  denyRead?: string[];
  /** Paths in the workspace left writable though protected by default (`.git/hooks`, `.git/config`, `.envrc`, …). @default [] */
  allowWrite?: string[];
  /**
   * Per-world limits: `pids` (processes and threads at once), `memoryBytes`; null lifts one.
   * @default { pids: 1024 (WORLD_PIDS_MAX), memoryBytes: half the machine's memory }
   */
  limits?: { pids?: number | null; memoryBytes?: number | null };
  /** Size of each world's `/tmp` in bytes. @default 2 GiB (WORLD_TMP_BYTES) */
  tmpBytes?: number;
  /**
   * Programs' own state (viminfo, histories, `~/.local/share`, `~/.config`) goes to a private home
   * of each world, seeded from the real one and removed with it; the real `$HOME` is never
   * written. false: `$HOME` is read-only in the restricted modes. @default true
   */
  privateHome?: boolean;
}

/** Everything `compose` accepts; every key is optional. */
export interface DshConfig {
  /** Absolute (or cwd-relative) workspace root: default workdir of commands. @default process.cwd() */
  workspace?: string;
  /**
   * The sandbox agents run in. Restricted modes are enforced with bubblewrap; without it they
   * refuse to run (SANDBOX_UNAVAILABLE) and `dumpConfig()` says how to fix that.
   * @default { mode: 'workspace-write', network: false }
   */
  sandbox?: SandboxConfig;
  /** ctx.shell limits (see `LocalBashConfig`). @default the executor's defaults */
  shell?: Omit<LocalBashConfig, 'cwd' | 'bash'>;
  /** ctx.jobs limits. @default the service's defaults */
  jobs?: JobServiceOptions;
  /**
   * Process-tree tracking of ctx.subprocess: `auto` gives each tree a cgroup (moved in as the spawn
   * returns), `strict` has each child born inside its cgroup (a host killed at any moment leaves
   * nothing; slower per spawn), `session` uses process groups only. @default { containment: 'auto' }
   */
  subprocess?: { containment?: 'auto' | 'strict' | 'session' };
  /** Decides escalation requests. @default none (escalations are denied) */
  approver?: Approver;
  /** Keep the session log under this root (`<dir>/<YYYY-MM-DD>/<session>/session.jsonl`). @default off */
  sessionLog?: { dir: string };
  /** Complete copies of long outputs (spill files and saved copies). @default see {@link OutputConfig} */
  output?: OutputConfig;
  /**
   * Where commands run: this machine, or a remote one reached over a channel argv such as
   * `['ssh', '-T', 'host']`, `['docker', 'exec', '-i', 'ctr']` or `['kubectl', 'exec', '-i', 'pod', '--']`
   * (it needs Node.js ≥ 20 and sh there; dsh sends its runtime server when missing). In a remote
   * world `workspace` and `output.dir` are paths on the remote (defaults: its home, its temp dir).
   * @default { kind: 'local' }
   */
  world?: WorldConfig;
  /**
   * ACP agents that `agent_task` may run as sub-agents, by name: `{ command: argv, env?, description? }`
   * (the description, one line, is shown to the model in agent_task's schema). Their
   * files, permission and terminal requests are served within the asking agent's sandbox mode and
   * through `approver`. @default none (no agent_task tool)
   */
  acp?: { agents: Record<string, AcpAgentConfig> };
  /**
   * Language servers of the `lsp_*` tools by language, replacing the defaults of the same name
   * (TypeScript/JavaScript: typescript-language-server; Python: pyright): `{ command: argv,
   * extensions: { ".rs": "rust" }, rootMarkers?: ["Cargo.toml"], initializationOptions? }`.
   * @default the defaults
   */
  lsp?: { servers?: Record<string, LspServerConfig> };
}

/** One language server of `config.lsp.servers`. */
export interface LspServerConfig {
  /** The program and its arguments; it speaks LSP on stdin and stdout. */
  command: string[];
  /** File extensions it serves (with the dot), each with its LSP language id. */
  extensions: Record<string, string>;
  /** Files or directories that mark a project root (the nearest wins; else the workspace). @default [] */
  rootMarkers?: string[];
  /** Sent with `initialize`. @default {} */
  initializationOptions?: Record<string, unknown>;
}

/** Where complete copies of long outputs live, and for how long. */
export interface OutputConfig {
  /** Absolute root of the per-composition directories. @default `<tmpdir>/dsh-<user>` */
  dir?: string;
  /** Keep the composition's copies after dispose. @default false (removed at dispose) */
  keep?: boolean;
  /** Disk budget of retained copies; the oldest are removed first past it. @default OUTPUT_BUDGET_BYTES (1 GiB) */
  maxBytes?: number;
}

/** The config with defaults filled, as `dumpConfig()` shows it. */
export interface ResolvedDshConfig {
  workspace: string;
  sandbox: {
    mode: SandboxMode;
    network: NetworkSetting;
    bwrapPath: string | undefined;
    denyRead?: string[];
    allowWrite?: string[];
    limits?: { pids?: number | null; memoryBytes?: number | null };
    tmpBytes?: number;
    privateHome?: boolean;
  };
  shell: Omit<LocalBashConfig, 'cwd' | 'bash'>;
  jobs: JobServiceOptions;
  subprocess: { containment: 'auto' | 'strict' | 'session' };
  approver: Approver | null;
  sessionLog: { dir: string } | null;
  output: Required<OutputConfig>;
  world: WorldConfig;
  acp: { agents: Record<string, AcpAgentConfig> } | null;
  /** Language servers replacing or adding to the defaults (none: the defaults alone). */
  lsp: { servers: Record<string, Required<Omit<LspServerConfig, 'initializationOptions'>> & LspServerConfig> };
  /** False when the workspace was not given and is the remote's home (known once connected). */
  workspaceGiven: boolean;
  /** False when the output root was not given (a remote world puts it in the remote's temp dir). */
  outputDirGiven: boolean;
}

/** The keys of `config`. */
export const CONFIG_KEYS = [
  'workspace',
  'sandbox',
  'shell',
  'jobs',
  'subprocess',
  'approver',
  'sessionLog',
  'output',
  'world',
  'acp',
  'lsp',
];
/** The keys of each section of `config`. */
export const CONFIG_SECTIONS: Readonly<Record<string, readonly string[]>> = {
  sandbox: ['mode', 'network', 'bwrapPath', 'denyRead', 'allowWrite', 'limits', 'tmpBytes', 'privateHome'],
  shell: ['timeoutMs', 'maxTimeoutMs', 'maxOutputBytes', 'spillDir', 'maxSpillBytes', 'graceMs'],
  jobs: ['maxRunningPerOwner', 'maxQueuedPerOwner', 'retainCount', 'retainMs'],
  subprocess: ['containment'],
  sessionLog: ['dir'],
  output: ['dir', 'keep', 'maxBytes'],
  world: ['kind', 'connect', 'node', 'joinsArgv'],
  acp: ['agents'],
  lsp: ['servers'],
};
/** True when `path` is a directory (following links). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const MODES = new Set(['read-only', 'workspace-write', 'danger-full-access']);

function invalid(field: string, problem: string): never {
  throw new DshError('INVALID_ARGUMENT', `compose config "${field}" ${problem}.`, { data: { field } });
}

function objectOr<T>(value: unknown, field: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(field, 'must be an object');
  return value as T;
}

/** Fills defaults and checks shapes. @throws DshError `INVALID_ARGUMENT` naming the key. */
export function resolveDshConfig(config: DshConfig = {}): ResolvedDshConfig {
  const c = objectOr<DshConfig>(config, 'config', {});
  checkKeys(c as Record<string, unknown>, CONFIG_KEYS, 'config', { preset: 'the top-level option preset' });
  for (const [key, valid] of Object.entries(CONFIG_SECTIONS)) {
    const value = (c as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      checkKeys(value as Record<string, unknown>, valid, `config.${key}`);
    }
  }
  if (c.workspace !== undefined && (typeof c.workspace !== 'string' || c.workspace === '')) {
    invalid('workspace', 'must be a path');
  }
  const world = resolveWorld(c.world);
  const remote = world.kind === 'remote';
  if (remote && c.workspace !== undefined && !isAbsolute(c.workspace)) {
    invalid('workspace', 'must be an absolute path on the remote machine in a remote world');
  }
  const workspace = remote ? (c.workspace ?? '/') : resolve(c.workspace ?? process.cwd());
  if (!remote && !isDirectory(workspace)) {
    invalid('workspace', `is ${workspace}, which is not an existing directory; create it or pass another`);
  }
  const sandbox = objectOr<SandboxConfig>(c.sandbox, 'sandbox', {});
  const mode = sandbox.mode ?? 'workspace-write';
  if (!MODES.has(mode)) invalid('sandbox.mode', "must be 'read-only', 'workspace-write' or 'danger-full-access'");
  const network = sandbox.network === undefined ? false : checkNetworkSetting(sandbox.network, 'sandbox.network');
  if (sandbox.bwrapPath !== undefined && (typeof sandbox.bwrapPath !== 'string' || !isAbsolute(sandbox.bwrapPath))) {
    invalid('sandbox.bwrapPath', 'must be an absolute path');
  }
  const subprocess = objectOr<{ containment?: 'auto' | 'strict' | 'session' }>(c.subprocess, 'subprocess', {});
  if (c.approver !== undefined && typeof c.approver !== 'function') invalid('approver', 'must be an async function');
  const sessionLog =
    c.sessionLog === undefined ? null : objectOr<{ dir: string }>(c.sessionLog, 'sessionLog', { dir: '' });
  if (sessionLog && (typeof sessionLog.dir !== 'string' || !isAbsolute(sessionLog.dir))) {
    invalid('sessionLog.dir', 'must be an absolute path');
  }
  const output = objectOr<OutputConfig>(c.output, 'output', {});
  if (output.dir !== undefined && (typeof output.dir !== 'string' || !isAbsolute(output.dir))) {
    invalid('output.dir', 'must be an absolute path');
  }
  if (output.keep !== undefined && typeof output.keep !== 'boolean') invalid('output.keep', 'must be a boolean');
  if (output.maxBytes !== undefined && (!Number.isSafeInteger(output.maxBytes) || output.maxBytes < 0)) {
    invalid('output.maxBytes', 'must be a non-negative integer of bytes');
  }
  return {
    workspace,
    sandbox: {
      mode,
      network,
      bwrapPath: sandbox.bwrapPath,
      ...(sandbox.denyRead !== undefined ? { denyRead: sandbox.denyRead } : {}),
      ...(sandbox.allowWrite !== undefined ? { allowWrite: sandbox.allowWrite } : {}),
      ...(sandbox.limits !== undefined ? { limits: sandbox.limits } : {}),
      ...(sandbox.tmpBytes !== undefined ? { tmpBytes: sandbox.tmpBytes } : {}),
      ...(sandbox.privateHome !== undefined ? { privateHome: sandbox.privateHome } : {}),
    },
    shell: { ...objectOr(c.shell, 'shell', {}) },
    jobs: { ...objectOr(c.jobs, 'jobs', {}) },
    subprocess: { containment: subprocess.containment ?? 'auto' },
    approver: c.approver ?? null,
    sessionLog,
    output: {
      dir: output.dir ?? defaultOutputRoot(),
      keep: output.keep ?? false,
      maxBytes: output.maxBytes ?? OUTPUT_BUDGET_BYTES,
    },
    world,
    acp: resolveAcp(c.acp),
    lsp: resolveLsp(c.lsp),
    workspaceGiven: c.workspace !== undefined,
    outputDirGiven: output.dir !== undefined,
  };
}

function resolveAcp(value: unknown): ResolvedDshConfig['acp'] {
  if (value === undefined) return null;
  const a = objectOr<{ agents?: unknown }>(value, 'acp', {});
  const agents = objectOr<Record<string, { command?: unknown; env?: unknown }>>(a.agents, 'acp.agents', {});
  for (const [name, agent] of Object.entries(agents)) {
    const field = `acp.agents.${name}`;
    const entry = objectOr<{ command?: unknown; env?: unknown }>(agent, field, {});
    checkKeys(
      entry as Record<string, unknown>,
      ['command', 'env', 'description', 'mcpServers', 'shareTools'],
      `config.${field}`,
    );
    const servers = (entry as { mcpServers?: unknown }).mcpServers;
    if (servers !== undefined && !Array.isArray(servers))
      invalid(`${field}.mcpServers`, 'must be an array of { name, command, env? }');
    for (const [i, m] of ((servers as unknown[] | undefined) ?? []).entries()) {
      const server = objectOr<Record<string, unknown>>(m, `${field}.mcpServers[${i}]`, {});
      checkKeys(server, ['name', 'command', 'env'], `config.${field}.mcpServers[${i}]`);
    }
    const description = (entry as { description?: unknown }).description;
    if (description !== undefined && typeof description !== 'string')
      invalid(`${field}.description`, 'must be a string');
    const share = (entry as { shareTools?: unknown }).shareTools;
    if (share !== undefined && typeof share !== 'boolean') invalid(`${field}.shareTools`, 'must be true or false');
    const cmd = entry.command;
    if (!Array.isArray(cmd) || cmd.length === 0 || cmd.some((w) => typeof w !== 'string' || w === '')) {
      invalid(`${field}.command`, 'must be a non-empty argv of non-empty strings');
    }
    const env = objectOr<Record<string, unknown>>(entry.env, `${field}.env`, {});
    if (Object.values(env).some((v) => typeof v !== 'string')) invalid(`${field}.env`, 'must map names to strings');
  }
  return { agents: agents as NonNullable<ResolvedDshConfig['acp']>['agents'] };
}

function resolveWorld(value: unknown): WorldConfig {
  const w = objectOr<{ kind?: unknown; connect?: unknown; node?: unknown; joinsArgv?: unknown }>(value, 'world', {
    kind: 'local',
  });
  if (w.kind === 'local') {
    if (w.connect !== undefined || w.node !== undefined) invalid('world', "of kind 'local' takes no connect or node");
    return { kind: 'local' };
  }
  if (w.kind !== 'remote') invalid('world.kind', "must be 'local' or 'remote'");
  const connect = w.connect;
  if (
    !Array.isArray(connect) ||
    connect.length === 0 ||
    connect.some((x) => typeof x !== 'string' || x === '' || x.includes('\0'))
  ) {
    invalid('world.connect', 'must be a non-empty argv of non-empty strings, e.g. ["ssh", "-T", "host"]');
  }
  if (w.node !== undefined && (typeof w.node !== 'string' || !w.node.startsWith('/'))) {
    invalid('world.node', 'must be an absolute path of Node.js on the remote machine');
  }
  if (w.joinsArgv !== undefined && typeof w.joinsArgv !== 'boolean') invalid('world.joinsArgv', 'must be a boolean');
  return {
    kind: 'remote',
    connect: [...connect],
    ...(w.node ? { node: w.node as string } : {}),
    ...(typeof w.joinsArgv === 'boolean' ? { joinsArgv: w.joinsArgv } : {}),
  };
}

function resolveLsp(value: unknown): ResolvedDshConfig['lsp'] {
  const l = objectOr<{ servers?: unknown }>(value, 'lsp', {});
  const servers = objectOr<Record<string, unknown>>(l.servers, 'lsp.servers', {});
  const out: ResolvedDshConfig['lsp']['servers'] = {};
  for (const [name, raw] of Object.entries(servers)) {
    const field = `lsp.servers.${name}`;
    const s = objectOr<Record<string, unknown>>(raw, field, {});
    checkKeys(s, ['command', 'extensions', 'rootMarkers', 'initializationOptions'], `config.${field}`);
    const strings = (v: unknown): v is string[] =>
      Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '');
    if (!strings(s.command) || s.command.length === 0)
      invalid(`${field}.command`, 'must be a non-empty argv of strings');
    const extensions = objectOr<Record<string, unknown>>(s.extensions, `${field}.extensions`, {});
    const entries = Object.entries(extensions);
    if (
      entries.length === 0 ||
      !entries.every(([ext, id]) => /^\.[^./\s]+$/.test(ext) && typeof id === 'string' && id !== '')
    ) {
      invalid(`${field}.extensions`, 'must map extensions with the dot (".rs") to language ids ("rust")');
    }
    if (s.rootMarkers !== undefined && !strings(s.rootMarkers))
      invalid(`${field}.rootMarkers`, 'must be a list of names');
    const init = s.initializationOptions;
    if (init !== undefined) objectOr(init, `${field}.initializationOptions`, {});
    out[name] = {
      command: [...(s.command as string[])],
      extensions: extensions as Record<string, string>,
      rootMarkers: [...((s.rootMarkers as string[] | undefined) ?? [])],
      ...(init !== undefined ? { initializationOptions: init as Record<string, unknown> } : {}),
    };
  }
  return { servers: out };
}
