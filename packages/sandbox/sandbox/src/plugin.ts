/**
 * The plugin that mounts ctx.sandboxPolicy and ctx.sandbox (bubblewrap).
 */
import type { Plugin } from '@dsh/core';
import { BubblewrapSandbox, DEFAULT_BWRAP_PATH } from './bubblewrap.js';
import { type SandboxPolicyOptions, SandboxPolicyService } from './policy.js';

/** Plugin name of {@link sandboxPlugin}. */
export const SANDBOX_PLUGIN = 'sandbox';

/** Provides ctx.sandboxPolicy and ctx.sandbox. */
export function sandboxPlugin(options: SandboxPolicyOptions & { bwrapPath?: string }): Plugin {
  const { bwrapPath = DEFAULT_BWRAP_PATH, ...policy } = options;
  return {
    name: SANDBOX_PLUGIN,
    setup(api) {
      api.provide('sandboxPolicy', new SandboxPolicyService(policy));
      api.provide('sandbox', new BubblewrapSandbox(bwrapPath));
    },
  };
}
