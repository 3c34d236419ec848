/**
 * @dsh/sandbox: ctx.sandboxPolicy (decides) and ctx.sandbox (confines; bubblewrap on Linux).
 */
export type { BubblewrapOptions, FarSide } from './bubblewrap.js';
export { BubblewrapSandbox, DEFAULT_BWRAP_PATH, WORLD_MACHINERY_PIDS } from './bubblewrap.js';
export { classifyRun, PROXY_BYPASSED } from './classify.js';
export type { FenceInput } from './fence.js';
export { CGROUP_SLOT, fenceArgs, WORLD_TMP_BYTES } from './fence.js';
export type { FenceFiles } from './fence-dir.js';
export { defaultFenceDir, prepareFenceFiles } from './fence-dir.js';
export { KERNEL_MASKED_DIRS, KERNEL_MASKED_FILES, KERNEL_READ_ONLY } from './kernel-masks.js';
export { WORLD_MEMORY_SHARE, WORLD_PIDS_MAX, WorldLimitGroups } from './limits.js';
export { isPrivateAddress } from './net/addresses.js';
export { PROXY_HEAD_MAX_BYTES } from './net/fronts.js';
export type { NetResolver, NetTarget } from './net/gate.js';
export { mapResolver, PROXY_CONNECT_TIMEOUT_MS, systemResolver } from './net/gate.js';
export type { NetRecord, NetworkProxyOptions } from './net/proxy.js';
export { NetworkProxy, PROXY_IDLE_MS, PROXY_MAX_CONNECTIONS, PROXY_RECORDS_MAX } from './net/proxy.js';
export type { NetworkRules } from './net/rules.js';
export { HostRules, NETWORK_RULES_MAX } from './net/rules.js';
export type { NetworkHostsSetting, NetworkSetting } from './net/setting.js';
export { checkNetworkSetting, settingResolver } from './net/setting.js';
export type { NetworkHooks } from './net/world-proxy.js';
export { SANDBOX_PLUGIN, sandboxPlugin } from './plugin.js';
export type { SandboxPolicyOptions } from './policy.js';
export { DEFAULT_DENY_READ, defaultWorldLimits, expandHome, isWider, SandboxPolicyService } from './policy.js';
export type { PrivateHome } from './private-home.js';
export {
  FRESH_CACHES,
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
export { makeShareDir, removeShareDir, WORLD_SHARE_DIR } from './share-dir.js';
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
export { SandboxWorld, WORLD_PROXY_PORT, WORLD_PROXY_SOCKET, worldArgv } from './world.js';
export { NET_SLOT, OPEN_DIR, SECCOMP_SLOT } from './world-shim.js';
