/**
 * What the world's seccomp filter refuses, as data: the calls refused outright, the calls whose
 * pid argument is checked, and a name → reason table for the denial classifier and the docs.
 */
import type { X64Syscall } from './x64.js';

/** The errno of every refusal but clone3's: EPERM ("Operation not permitted"). */
export const SECCOMP_EPERM = 1;
/** The errno of clone3: ENOSYS, so glibc and others fall back to clone, whose flags the filter can read. */
export const SECCOMP_ENOSYS = 38;
/** The calls refused with {@link SECCOMP_ENOSYS} rather than {@link SECCOMP_EPERM}. */
export const SECCOMP_ENOSYS_CALLS: readonly string[] = ['clone3'];

/** Calls refused with EPERM whatever their arguments, each with why. */
export const SECCOMP_ALWAYS_DENIED = {
  ptrace: 'reads, writes and steers other processes',
  process_vm_readv: 'reads another process’s memory',
  process_vm_writev: 'writes another process’s memory',
  kexec_load: 'replaces the running kernel',
  kexec_file_load: 'replaces the running kernel',
  init_module: 'loads code into the kernel',
  finit_module: 'loads code into the kernel',
  delete_module: 'unloads kernel modules',
  create_module: 'obsolete module call (kernel 2.4)',
  get_kernel_syms: 'obsolete module call (kernel 2.4)',
  query_module: 'obsolete module call (kernel 2.4)',
  bpf: 'loads eBPF programs into the kernel',
  perf_event_open: 'observes the kernel and other processes; a frequent exploit entry',
  keyctl: 'the kernel keyring is not namespaced and holds host credentials',
  add_key: 'the kernel keyring is not namespaced and holds host credentials',
  request_key: 'the kernel keyring is not namespaced and holds host credentials',
  userfaultfd: 'stalls kernel code on a page fault; a common exploit aid',
  mount: 'changes the world’s mounts',
  umount2: 'removes the world’s mounts (and what they hide)',
  pivot_root: 'changes the world’s root',
  move_mount: 'changes the world’s mounts (new mount API)',
  open_tree: 'clones mounts (new mount API)',
  fsopen: 'creates filesystems to mount (new mount API)',
  fsconfig: 'configures filesystems to mount (new mount API)',
  fsmount: 'creates mounts (new mount API)',
  fspick: 'reconfigures mounted filesystems (new mount API)',
  mount_setattr: 'changes mount flags such as read-only',
  swapon: 'changes the host’s swap',
  swapoff: 'changes the host’s swap',
  reboot: 'restarts or halts the machine',
  acct: 'switches process accounting',
  setns: 'enters other namespaces',
  iopl: 'raw I/O port access',
  ioperm: 'raw I/O port access',
  quotactl: 'changes disk quotas',
  quotactl_fd: 'changes disk quotas',
  lookup_dcookie: 'exposes kernel directory entries (profiling)',
  nfsservctl: 'obsolete NFS server control',
  settimeofday: 'sets the host clock',
  clock_settime: 'sets the host clock',
  clock_adjtime: 'adjusts the host clock',
  adjtimex: 'adjusts the host clock',
  syslog: 'reads or clears the kernel log',
  vhangup: 'hangs up the terminal',
  io_uring_setup: 'io_uring runs calls the filter never sees; a frequent exploit entry',
  io_uring_enter: 'io_uring runs calls the filter never sees; a frequent exploit entry',
  io_uring_register: 'io_uring runs calls the filter never sees; a frequent exploit entry',
  open_by_handle_at: 'opens files by handle, around the mount view',
  name_to_handle_at: 'makes file handles for open_by_handle_at',
  pidfd_getfd: 'steals another process’s file descriptors',
  pidfd_send_signal: 'signals through a pidfd or an open /proc/<pid>, around the pid checks',
  kcmp: 'compares kernel objects of other processes (address-space probing)',
  process_madvise: 'changes another process’s memory',
  uselib: 'obsolete library loader',
  _sysctl: 'obsolete kernel tuning call',
} as const satisfies Partial<Record<X64Syscall, string>>;

/** Calls refused with EPERM when their pid argument (by index; low 32 bits) is a protected pid or -1. */
export const SECCOMP_PID_ARGUMENT = {
  // For tgkill and rt_tgsigqueueinfo arg0 is the thread group: a thread of it is signalled only inside it.
  kill: 0,
  tkill: 0,
  tgkill: 0,
  rt_sigqueueinfo: 0,
  rt_tgsigqueueinfo: 0,
  pidfd_open: 0,
  prlimit64: 0,
  sched_setaffinity: 0,
  sched_setscheduler: 0,
  sched_setparam: 0,
  setpriority: 1,
  ioprio_set: 1,
} as const satisfies Partial<Record<X64Syscall, 0 | 1>>;

const AIMED = 'when aimed at a protected process of the world (its machinery) or at every process (-1)';

/**
 * Every call the world filter refuses, by name, with a one-line reason (for the denial
 * classifier and the docs). Entries after the unconditional ones apply only as their reason says.
 */
export const SECCOMP_DENIED: Readonly<Record<string, string>> = {
  ...SECCOMP_ALWAYS_DENIED,
  x32: 'any call through the x32 ABI (a second numbering that would bypass the checks)',
  clone3: 'answered ENOSYS: its flags sit behind a pointer the filter cannot read (callers fall back to clone)',
  clone: 'with a namespace flag (new namespaces would undo the fence)',
  unshare: 'with a namespace flag, CLONE_NEWTIME included (new namespaces would undo the fence)',
  ioctl: 'TIOCSTI (typing into the terminal), TIOCLINUX (console control), FIOSETOWN and SIOCSPGRP (signal routing)',
  fcntl: 'F_SETOWN when aimed at a protected process or group, and F_SETOWN_EX (signal routing around the pid checks)',
  kill: `${AIMED}, or at a protected process group (-pid)`,
  ...Object.fromEntries(
    (Object.keys(SECCOMP_PID_ARGUMENT) as (keyof typeof SECCOMP_PID_ARGUMENT)[])
      .filter((name) => name !== 'kill')
      .map((name) => [name, AIMED]),
  ),
};
