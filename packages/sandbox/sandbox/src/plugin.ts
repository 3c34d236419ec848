/**
 * The plugin that mounts ctx.sandboxPolicy and ctx.sandbox (bubblewrap).
 */
import type { Plugin } from '@dsh/core';
import { BubblewrapSandbox, DEFAULT_BWRAP_PATH, type FarSide } from './bubblewrap.js';
import { type SandboxPolicyOptions, SandboxPolicyService } from './policy.js';

/** Plugin name of {@link sandboxPlugin}. */
export const SANDBOX_PLUGIN = 'sandbox';

/**
 * Provides ctx.sandboxPolicy and ctx.sandbox. A reload keeps both instances, so per-owner
 * modes, the fences of live terminals and the agents' worlds survive it; teardown ends the worlds.
 */
export function sandboxPlugin(
  options: SandboxPolicyOptions & { bwrapPath?: string; outputDirs?: readonly string[]; farSide?: FarSide },
): Plugin {
  const { bwrapPath = DEFAULT_BWRAP_PATH, outputDirs = [], farSide, ...policy } = options;
  let held: { policy: SandboxPolicyService; sandbox: BubblewrapSandbox } | undefined;
  return {
    name: SANDBOX_PLUGIN,
    setup(api) {
      held ??= {
        policy: new SandboxPolicyService(policy),
        sandbox: new BubblewrapSandbox({ bwrapPath, outputDirs, ...(farSide ? { farSide } : {}) }),
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
