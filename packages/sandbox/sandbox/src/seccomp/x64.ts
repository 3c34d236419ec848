/**
 * x86_64 facts a seccomp filter checks: system call numbers (the kernel's
 * arch/x86/entry/syscalls/syscall_64.tbl, as in asm/unistd_64.h), the audit architecture, the
 * x32 marker bit, and where `struct seccomp_data` keeps each field.
 */

/** `seccomp_data.arch` for the native 64-bit ABI (EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE). */
export const AUDIT_ARCH_X86_64 = 0xc000_003e;

/**
 * Set in `seccomp_data.nr` for x32-ABI calls, which share AUDIT_ARCH_X86_64 with native ones
 * (__X32_SYSCALL_BIT); a filter that forgets it lets every call in again under a second number.
 */
export const X32_SYSCALL_BIT = 0x4000_0000;

/** Byte offset of `seccomp_data.nr` (int). */
export const SECCOMP_DATA_NR = 0;
/** Byte offset of `seccomp_data.arch` (u32). */
export const SECCOMP_DATA_ARCH = 4;
/** Byte offset of `seccomp_data.args[0]`; each argument is a u64, 8 bytes on. */
export const SECCOMP_DATA_ARGS = 16;
/** How many arguments `seccomp_data` carries. */
export const SECCOMP_DATA_ARG_COUNT = 6;

/**
 * Byte offset of the low 32 bits of argument `index` (0-5). On little-endian x86_64 the low
 * word comes first. Checking only it is right for `int`/`pid_t`/`unsigned int` arguments, which
 * the kernel truncates to 32 bits itself: comparing all 64 would let set high bits slip past.
 */
export function seccompArgLow(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index >= SECCOMP_DATA_ARG_COUNT) {
    throw new RangeError(`seccomp_data has arguments 0-${SECCOMP_DATA_ARG_COUNT - 1}, not ${index}`);
  }
  return SECCOMP_DATA_ARGS + 8 * index;
}

/** x86_64 system call numbers of every call the world filter looks at. */
export const X64_SYSCALLS = {
  ioctl: 16,
  clone: 56,
  kill: 62,
  ptrace: 101,
  syslog: 103,
  rt_sigqueueinfo: 129,
  uselib: 134,
  setpriority: 141,
  sched_setparam: 142,
  sched_setscheduler: 144,
  vhangup: 153,
  pivot_root: 155,
  _sysctl: 156,
  adjtimex: 159,
  acct: 163,
  settimeofday: 164,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  iopl: 172,
  ioperm: 173,
  create_module: 174,
  init_module: 175,
  delete_module: 176,
  get_kernel_syms: 177,
  query_module: 178,
  quotactl: 179,
  nfsservctl: 180,
  tkill: 200,
  sched_setaffinity: 203,
  lookup_dcookie: 212,
  clock_settime: 227,
  tgkill: 234,
  ioprio_set: 251,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  unshare: 272,
  rt_tgsigqueueinfo: 297,
  perf_event_open: 298,
  prlimit64: 302,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  clock_adjtime: 305,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  pidfd_open: 434,
  fcntl: 72,
  clone3: 435,
  pidfd_getfd: 438,
  pidfd_send_signal: 424,
  process_madvise: 440,
  mount_setattr: 442,
  quotactl_fd: 443,
} as const;

/** The name of a system call in {@link X64_SYSCALLS}. */
export type X64Syscall = keyof typeof X64_SYSCALLS;
