/**
 * @dsh/sandbox: ctx.sandboxPolicy (decides) and ctx.sandbox (confines; bubblewrap on Linux).
 */
export type { BubblewrapOptions, FarSide } from './bubblewrap.js';
export { BubblewrapSandbox, DEFAULT_BWRAP_PATH } from './bubblewrap.js';
export { classifyRun } from './classify.js';
export { CGROUP_SLOT, fenceArgs } from './fence.js';
export { SANDBOX_PLUGIN, sandboxPlugin } from './plugin.js';
export type { SandboxPolicyOptions } from './policy.js';
export { isWider, SandboxPolicyService } from './policy.js';
export type { ResolvedSandbox, RunEvidence, Sandbox, SandboxFacts, SandboxMode, World } from './types.js';
export { SANDBOX_MODES } from './types.js';
export type { WorldStart } from './world.js';
export { SandboxWorld, worldArgv } from './world.js';
