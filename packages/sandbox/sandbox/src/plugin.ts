/**
 * The plugin that mounts ctx.sandboxPolicy and ctx.sandbox (bubblewrap).
 */
import type { Plugin } from '@dsh/core';
import { BubblewrapSandbox, DEFAULT_BWRAP_PATH, type FarSide } from './bubblewrap.js';
import { checkNetworkSetting, type NetworkSetting, settingResolver } from './net/setting.js';
import type { NetworkHooks } from './net/world-proxy.js';
import { type SandboxPolicyOptions, SandboxPolicyService } from './policy.js';

/** Plugin name of {@link sandboxPlugin}. */
export const SANDBOX_PLUGIN = 'sandbox';

/**
 * Provides ctx.sandboxPolicy and ctx.sandbox. A reload keeps both instances, so per-owner
 * modes, the fences of live terminals and the agents' worlds survive it; teardown ends the worlds.
 */
export function sandboxPlugin(
  options: Omit<SandboxPolicyOptions, 'network'> & {
    bwrapPath?: string;
    outputDirs?: readonly string[];
    farSide?: FarSide;
    /** None, all, or hosts by name (with pins: net/setting.ts). @default false */
    network?: NetworkSetting;
    /** Told of every connection a world's proxy made or refused (the session log). @default none */
    onNetworkRecord?: NetworkHooks['onRecord'];
    /** Each world on this machine gets a share directory (a sub-agent's shareTools). @default false */
    shareDirs?: boolean;
  },
): Plugin {
  const { bwrapPath = DEFAULT_BWRAP_PATH, outputDirs = [], farSide, onNetworkRecord, shareDirs, ...policy } = options;
  const network = checkNetworkSetting(policy.network ?? false);
  const hooks: NetworkHooks = {
    resolver: settingResolver(network),
    ...(onNetworkRecord ? { onRecord: onNetworkRecord } : {}),
  };
  let held: { policy: SandboxPolicyService; sandbox: BubblewrapSandbox } | undefined;
  return {
    name: SANDBOX_PLUGIN,
    setup(api) {
      held ??= {
        policy: new SandboxPolicyService({ ...policy, network }),
        sandbox: new BubblewrapSandbox({
          bwrapPath,
          outputDirs,
          network: hooks,
          shareDirs: shareDirs === true,
          ...(farSide ? { farSide } : {}),
        }),
      };
      api.provide('sandboxPolicy', held.policy);
      api.provide('sandbox', held.sandbox);
    },
    async dispose(reason) {
      if (reason !== 'teardown' || !held) return;
      const worlds = held.sandbox;
      held = undefined;
      await worlds.dispose();
    },
  };
}
