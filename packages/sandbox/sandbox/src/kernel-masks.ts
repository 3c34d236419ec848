/**
 * The kernel's own knobs, out of a world's reach (at least Docker's default set): uid 0 without
 * capabilities still passes the permission check of most sysctls, so `/proc/sys` must be
 * read-only (a writable `kernel.core_pattern` runs a program of the world's choosing as host
 * root); files that leak kernel memory or other tenants' facts are masked. `/sys` is read-only
 * already (the fence binds `/` read-only, submounts included); its firmware tables are masked.
 *
 * Each entry is applied only where the path exists where the world runs (see the `--dsh-if`
 * step of world.ts), so one list serves every kernel.
 */

/** Bound read-only over the fresh `/proc`: sysctls, the SysRq trigger, IRQ, bus and fs knobs. */
export const KERNEL_READ_ONLY: readonly string[] = [
  '/proc/sys',
  '/proc/sysrq-trigger',
  '/proc/irq',
  '/proc/bus',
  '/proc/fs',
];

/** Files replaced by an unreadable one: kernel memory, keys, timers and scheduler internals. */
export const KERNEL_MASKED_FILES: readonly string[] = [
  '/proc/kcore',
  '/proc/keys',
  '/proc/key-users',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/latency_stats',
  '/proc/kmsg',
  '/proc/kpagecount',
  '/proc/kpageflags',
  '/proc/kpagecgroup',
];

/** Directories replaced by an empty read-only one: hardware tables and power controls. */
export const KERNEL_MASKED_DIRS: readonly string[] = [
  '/proc/acpi',
  '/proc/scsi',
  '/proc/asound',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
  '/sys/kernel/security',
  '/sys/kernel/debug',
];

/**
 * The parts of bubblewrap's init (world pid 1) that would let a command read its memory or use its
 * descriptors: it stays dumpable (it changes no credentials), and the seccomp filter stops only
 * `ptrace` itself, not `/proc/1/mem`. The init is single-threaded, so task 1 is its only thread.
 */
export const INIT_MASKED_FILES: readonly string[] = [
  '/proc/1/mem',
  '/proc/1/task/1/mem',
  '/proc/1/environ',
  '/proc/1/task/1/environ',
  '/proc/1/pagemap',
  '/proc/1/task/1/pagemap',
];

/** Descriptor and mapping directories of bubblewrap's init, replaced by an empty read-only one. */
export const INIT_MASKED_DIRS: readonly string[] = [
  '/proc/1/fd',
  '/proc/1/task/1/fd',
  '/proc/1/map_files',
  '/proc/1/task/1/map_files',
];

/** The fence step that applies its next `count` arguments only where `path` exists (world.ts expands it). */
export const IF_EXISTS = '--dsh-if';

/** The fence step that applies its next `count` arguments only where `path` exists and is not a directory. */
export const IF_FILE = '--dsh-if-file';

/** `args`, applied only where `path` exists where the world runs. */
export function ifExists(path: string, args: readonly string[]): string[] {
  return [IF_EXISTS, path, String(args.length), ...args];
}

/** The bwrap arguments of the kernel masks; `unreadable` is a file no one without capabilities can read. */
export function kernelMaskArgs(unreadable: string): string[] {
  const args: string[] = [];
  for (const path of KERNEL_READ_ONLY) args.push(...ifExists(path, ['--ro-bind', path, path]));
  for (const path of [...KERNEL_MASKED_FILES, ...INIT_MASKED_FILES]) {
    args.push(...ifExists(path, ['--ro-bind', unreadable, path]));
  }
  for (const path of [...KERNEL_MASKED_DIRS, ...INIT_MASKED_DIRS]) {
    args.push(...ifExists(path, ['--tmpfs', path, '--remount-ro', path]));
  }
  return args;
}
