/**
 * The seccomp filter of a sandbox world, generated as classic BPF for bwrap's `--seccomp FD`.
 */
export type { BpfLine, SockFilter } from './bpf.js';
export { BPF_MAX_JUMP, BPF_MAXINSNS, bpf, bpfAssemble, bpfDecode, SECCOMP_INVALID, SOCK_FILTER_BYTES } from './bpf.js';
export {
  SECCOMP_ALWAYS_DENIED,
  SECCOMP_DENIED,
  SECCOMP_ENOSYS,
  SECCOMP_ENOSYS_CALLS,
  SECCOMP_EPERM,
  SECCOMP_PID_ARGUMENT,
} from './denied.js';
export type { WorldSeccompOptions } from './filter.js';
export {
  CLONE_NAMESPACE_FLAGS,
  MAX_PROTECTED_PIDS,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  seccompSupported,
  UNSHARE_NAMESPACE_FLAGS,
  worldSeccompFilter,
} from './filter.js';
export type { X64Syscall } from './x64.js';
export { AUDIT_ARCH_X86_64, seccompArgLow, X32_SYSCALL_BIT, X64_SYSCALLS } from './x64.js';
