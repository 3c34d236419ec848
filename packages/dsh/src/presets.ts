/**
 * Presets: which plugins a composition mounts.
 */

import { acpPlugin, type ShareTools } from '@dsh/acp';
import { bashLocalPlugin } from '@dsh/bash-local';
import { DshError, type Plugin } from '@dsh/core';
import { jobsPlugin } from '@dsh/jobs';
import { lspPlugin } from '@dsh/lsp';
import { type NetRecord, sandboxPlugin } from '@dsh/sandbox';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { terminalPlugin } from '@dsh/terminal';
import { terminalBashPlugin } from '@dsh/terminal-bash';
import { toolBashPlugin } from '@dsh/tool-bash';
import { toolBashPersistentPlugin } from '@dsh/tool-bash-persistent';
import { toolTerminalPlugin } from '@dsh/tool-terminal';
import type { ResolvedDshConfig } from './config.js';
import type { OutputPlace } from './output-store.js';
import { farSideOf, type OpenWorld, remoteWorldPlugin } from './world.js';

/** Preset names of DESIGN §8. */
export const PRESETS = ['base', 'full', 'minimal'] as const;
export type PresetName = (typeof PRESETS)[number];

/**
 * The plugins of a preset, in mount order: `base` (one-shot bash + jobs), `full` (base +
 * terminals), `minimal` (bash in a persistent shell).
 * @throws DshError `INVALID_ARGUMENT` for an unknown preset.
 */
export function presetPlugins(
  preset: PresetName,
  config: ResolvedDshConfig,
  output: OutputPlace,
  world: OpenWorld | null = null,
  /** Told of every connection a world's proxy made or refused, by world scope (the session log). */
  onNetworkRecord?: (scope: string, record: NetRecord) => void,
  /** Serves dsh's tools to sub-agents with `shareTools` (share-tools.ts). */
  shareTools?: ShareTools,
): Plugin[] {
  if (!PRESETS.includes(preset)) {
    throw new DshError('INVALID_ARGUMENT', `Unknown preset "${String(preset)}"; use one of ${PRESETS.join(', ')}.`, {
      data: { field: 'preset' },
    });
  }
  const { workspace } = config;
  // In a remote world ctx.subprocess is the channel runtime; everything above runs unchanged.
  const substrate = world
    ? remoteWorldPlugin(world, { dir: output.dir, keep: config.output.keep })
    : subprocessLocalPlugin({ containment: config.subprocess.containment });
  const spillDir = config.shell.spillDir ?? output.spillDir;
  const fence = sandboxPlugin({
    mode: config.sandbox.mode,
    workspace,
    network: config.sandbox.network,
    ...(config.sandbox.denyRead ? { denyRead: config.sandbox.denyRead } : {}),
    ...(config.sandbox.allowWrite ? { allowWrite: config.sandbox.allowWrite } : {}),
    ...(config.sandbox.limits ? { limits: config.sandbox.limits } : {}),
    ...(config.sandbox.tmpBytes !== undefined ? { tmpBytes: config.sandbox.tmpBytes } : {}),
    ...(config.sandbox.privateHome !== undefined ? { privateHome: config.sandbox.privateHome } : {}),
    // The session log (every agent's calls, and what a person typed) is never readable in a world.
    ...(config.sessionLog ? { hidden: [config.sessionLog.dir] } : {}),
    // Output copies are read at the same path inside the agent's world as outside it.
    outputDirs: spillDir === output.spillDir ? [output.dir] : [output.dir, spillDir],
    ...(config.sandbox.bwrapPath ? { bwrapPath: config.sandbox.bwrapPath } : {}),
    // The sandbox resolves on the remote side: bubblewrap there, started with the remote's Node.js.
    ...(world ? { farSide: farSideOf(world) } : {}),
    ...(onNetworkRecord ? { onNetworkRecord } : {}),
    // A sub-agent given dsh's tools reaches them through its world's share directory.
    shareDirs: Object.values(config.acp?.agents ?? {}).some((a) => a.shareTools === true),
  });
  const terminals = [terminalPlugin(), terminalBashPlugin({ cwd: workspace, sandboxMode: config.sandbox.mode })];
  if (preset === 'minimal') {
    return [substrate, fence, ...terminals, toolBashPersistentPlugin({ workspace, savedDir: spillDir })];
  }
  const base = [
    substrate,
    fence,
    bashLocalPlugin({ ...config.shell, spillDir, cwd: workspace, ...(output.editor ? { editor: output.editor } : {}) }),
    jobsPlugin(config.jobs),
    toolBashPlugin({
      workspace,
      defaultMode: config.sandbox.mode,
      ...(config.approver ? { approver: config.approver } : {}),
    }),
  ];
  // Sub-agents when some are configured: agent_task runs them (the approver decides their asks).
  const acp = config.acp
    ? [
        acpPlugin({
          workspace,
          agents: config.acp.agents,
          ...(config.approver ? { approver: config.approver } : {}),
          ...(shareTools ? { shareTools } : {}),
        }),
      ]
    : [];
  const full = [
    ...base,
    ...terminals,
    toolTerminalPlugin({ workspace }),
    lspPlugin({ workspace, servers: config.lsp.servers }),
  ];
  return preset === 'full' ? [...full, ...acp] : [...base, ...acp];
}
