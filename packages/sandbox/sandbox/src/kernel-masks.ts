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
  for (const path of KERNEL_MASKED_FILES) args.push(...ifExists(path, ['--ro-bind', unreadable, path]));
  for (const path of KERNEL_MASKED_DIRS) args.push(...ifExists(path, ['--tmpfs', path, '--remount-ro', path]));
  return args;
}
