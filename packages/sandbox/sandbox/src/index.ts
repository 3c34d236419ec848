/**
 * @dsh/sandbox: ctx.sandboxPolicy (decides) and ctx.sandbox (confines; bubblewrap on Linux).
 */
export { BubblewrapSandbox, DEFAULT_BWRAP_PATH } from './bubblewrap.js';
export { classifyRun } from './classify.js';
export { SANDBOX_PLUGIN, sandboxPlugin } from './plugin.js';
export type { SandboxPolicyOptions } from './policy.js';
export { isWider, SandboxPolicyService } from './policy.js';
export type { Confinement, ResolvedSandbox, RunEvidence, Sandbox, SandboxFacts, SandboxMode } from './types.js';
export { SANDBOX_MODES } from './types.js';
