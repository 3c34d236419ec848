/**
 * What `dsh mcp` and `dsh web` share: the composition they serve (preset, workspace, sandbox,
 * session log, world) and the wait for the end (a signal, or the front door closing).
 */
import { DshError } from '@dsh/core';
import type { SandboxMode } from '@dsh/sandbox';
import { compose, type Dsh } from '../compose.js';
import type { DshConfig } from '../config.js';
import { DEFAULT_SESSION_ROOT } from '../log/session-log.js';
import type { PresetName } from '../presets.js';
import { layeredConfig } from './config-file.js';

/** Past the composition's grace, shutdown gets this long before the process exits regardless. */
export const SHUTDOWN_MARGIN_MS = 2_000;

/** The composition options both servers take. */
export interface ServedOptions {
  preset?: PresetName;
  workspace?: string;
  /** `--sandbox`; unset: the config file's, else workspace-write. */
  sandbox?: SandboxMode;
  network?: boolean;
  /** `--allow-host NAME` (repeatable): the hosts a world reaches by name, added to the config file's list. */
  allowHost?: string[];
  logDir?: string;
  /** commander's `--no-log`. */
  log?: boolean;
  /** `--connect`: the channel argv of a remote world. */
  connect?: string[];
  /** `--remote-node`: Node.js on the remote. */
  remoteNode?: string;
  /** `--joins-argv`: the channel joins its command into one string. */
  joinsArgv?: boolean;
  /** `--config FILE`: the user's config file (else DSH_CONFIG, else ~/.config/dsh/config.json). */
  config?: string;
}

/** What the flags given say, as config (flags override the config files). */
export function flagConfig(options: ServedOptions): DshConfig {
  if ((options.remoteNode || options.joinsArgv) && !options.connect) {
    throw new DshError('INVALID_ARGUMENT', '--remote-node and --joins-argv go with --connect (a remote world).', {
      data: { field: options.remoteNode ? 'remoteNode' : 'joinsArgv' },
    });
  }
  const sandbox = {
    ...(options.sandbox ? { mode: options.sandbox } : {}),
    ...(options.network ? { network: true } : {}),
  };
  return {
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
    ...(options.logDir ? { sessionLog: { dir: options.logDir } } : {}),
    ...(options.connect
      ? {
          world: {
            kind: 'remote',
            connect: options.connect,
            ...(options.remoteNode ? { node: options.remoteNode } : {}),
            ...(options.joinsArgv ? { joinsArgv: true } : {}),
          },
        }
      : {}),
  };
}

/**
 * `config` with the `--allow-host` names added to its allow list (a config file's deny list,
 * pins and allowPrivate are kept; a file's `true` or `false` becomes the named hosts only).
 * @throws DshError `INVALID_ARGUMENT` for `--network` together with `--allow-host`.
 */
function withAllowedHosts(config: DshConfig, options: ServedOptions): DshConfig {
  const hosts = options.allowHost ?? [];
  if (hosts.length === 0) return config;
  if (options.network) {
    throw new DshError(
      'INVALID_ARGUMENT',
      '--network allows every host and --allow-host only the named ones: pass one of them.',
      { data: { field: 'allowHost' } },
    );
  }
  const had = config.sandbox?.network;
  const base = typeof had === 'object' ? had : { allow: [] };
  return {
    ...config,
    sandbox: { ...config.sandbox, network: { ...base, allow: [...new Set([...base.allow, ...hosts])] } },
  };
}

/**
 * Composes with `defaults`, the config files and the flags (config-file.ts); `--no-log` keeps no
 * session log whatever a file says. The dump names the files read and each value's source.
 */
export async function composeLayered(preset: PresetName, defaults: DshConfig, options: ServedOptions): Promise<Dsh> {
  const layered = layeredConfig({
    defaults,
    flags: flagConfig(options),
    ...(options.config ? { configFlag: options.config } : {}),
  });
  const config = withAllowedHosts({ ...layered.config }, options);
  if (options.allowHost?.length && (config.sandbox?.mode ?? 'workspace-write') === 'danger-full-access') {
    throw new DshError(
      'INVALID_ARGUMENT',
      '--allow-host limits the network of a sandboxed command, and danger-full-access has no sandbox: add --sandbox workspace-write (or read-only).',
      { data: { field: 'allowHost' } },
    );
  }
  if (options.allowHost?.length) layered.sources['sandbox.network'] = 'flags';
  if (options.log === false) {
    delete config.sessionLog;
    layered.sources.sessionLog = 'flags';
    delete layered.sources['sessionLog.dir'];
  }
  const dsh = await compose({ preset, config });
  return {
    ...dsh,
    dumpConfig: () => ({ ...dsh.dumpConfig(), configFiles: layered.files, configSources: layered.sources }),
  };
}

/** Composes what a server serves. */
export function composeServed(options: ServedOptions, defaults: { preset: PresetName }): Promise<Dsh> {
  return composeLayered(
    options.preset ?? defaults.preset,
    {
      sandbox: { mode: 'workspace-write', network: false },
      // Each child is born inside its tree's cgroup: a kill -9 of the server at any moment ends what
      // it started (with `auto`, a command killed just after it forked stayed in the host's nursery).
      subprocess: { containment: 'strict' },
      sessionLog: { dir: DEFAULT_SESSION_ROOT },
    },
    options,
  );
}

/**
 * Resolves with the signal that ended the server, or null when `closed` settled first. The
 * handlers stay: a second Ctrl-C during shutdown must not kill the process before its
 * composition is disposed (the shutdown budget bounds how long that takes).
 */
export function untilStopped(closed: Promise<unknown>): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => resolve(signal);
    for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(s, onSignal);
    void closed.then(() => resolve(null));
  });
}

/** The longest a shutdown may take before the process exits regardless. */
export function shutdownBudgetMs(dump: Record<string, unknown>): number {
  return ((dump.config as { shell?: { graceMs?: number } }).shell?.graceMs ?? 1_000) + SHUTDOWN_MARGIN_MS;
}

/** The sandbox as the start-up line says it. */
export function fenceText(dump: Record<string, unknown>): string {
  const sandbox = dump.sandbox as {
    mode: string;
    fence: string | null;
    note: string;
    network: boolean | { allow: string[] };
  };
  const net =
    typeof sandbox.network === 'object'
      ? `, network to ${sandbox.network.allow.length} named host${sandbox.network.allow.length === 1 ? '' : 's'} only`
      : sandbox.network
        ? ', network on'
        : ', no network';
  const fence =
    sandbox.mode === 'danger-full-access'
      ? 'unconfined'
      : sandbox.fence
        ? `confined by ${sandbox.fence}${net}`
        : `NO FENCE: ${sandbox.note}`;
  return `sandbox ${sandbox.mode} (${fence})`;
}
