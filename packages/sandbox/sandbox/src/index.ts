/**
 * @dsh/sandbox: ctx.sandboxPolicy (decides) and ctx.sandbox (confines; bubblewrap on Linux).
 */
export type { BubblewrapOptions, FarSide } from './bubblewrap.js';
export { BubblewrapSandbox, DEFAULT_BWRAP_PATH, WORLD_MACHINERY_PIDS } from './bubblewrap.js';
export { classifyRun } from './classify.js';
export type { FenceInput } from './fence.js';
export { CGROUP_SLOT, fenceArgs, WORLD_TMP_BYTES } from './fence.js';
export type { FenceFiles } from './fence-dir.js';
export { defaultFenceDir, prepareFenceFiles } from './fence-dir.js';
export { KERNEL_MASKED_DIRS, KERNEL_MASKED_FILES, KERNEL_READ_ONLY } from './kernel-masks.js';
export { WORLD_MEMORY_SHARE, WORLD_PIDS_MAX, WorldLimitGroups } from './limits.js';
export { SANDBOX_PLUGIN, sandboxPlugin } from './plugin.js';
export type { SandboxPolicyOptions } from './policy.js';
export { DEFAULT_DENY_READ, defaultWorldLimits, expandHome, isWider, SandboxPolicyService } from './policy.js';
export type { PrivateHome } from './private-home.js';
export {
  makePrivateHome,
  PRIVATE_HOME_COPY_MAX_BYTES,
  PRIVATE_HOME_MAX_ENTRIES,
  removePrivateHome,
  STATE_PARENTS,
} from './private-home.js';
export { PROTECTED_NAMES, protectedPaths } from './protect.js';
export type { BpfLine, SockFilter, WorldSeccompOptions, X64Syscall } from './seccomp/index.js';
export {
  AUDIT_ARCH_X86_64,
  BPF_MAXINSNS,
  bpf,
  bpfAssemble,
  bpfDecode,
  MAX_PROTECTED_PIDS,
  SECCOMP_ALWAYS_DENIED,
  SECCOMP_DENIED,
  SECCOMP_ENOSYS,
  SECCOMP_ENOSYS_CALLS,
  SECCOMP_EPERM,
  SECCOMP_INVALID,
  SECCOMP_PID_ARGUMENT,
  seccompSupported,
  worldSeccompFilter,
  X64_SYSCALLS,
} from './seccomp/index.js';
export type {
  ResolvedSandbox,
  RunEvidence,
  Sandbox,
  SandboxFacts,
  SandboxMode,
  World,
  WorldLimits,
} from './types.js';
export { SANDBOX_MODES } from './types.js';
export type { WorldStart } from './world.js';
export { SandboxWorld, worldArgv } from './world.js';
export { NET_SLOT, OPEN_DIR, SECCOMP_SLOT } from './world-shim.js';
