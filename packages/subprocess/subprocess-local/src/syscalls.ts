/**
 * Syscall numbers that mean "waiting for input", per architecture, as /proc/<pid>/syscall shows them.
 */

/** Numbers of read-type and poll-type syscalls on one architecture. */
export interface WaitSyscalls {
  read: readonly number[];
  /** poll and ppoll: (struct pollfd *fds, nfds, …); the array is read from /proc/<pid>/mem. */
  poll: readonly number[];
  /** select and pselect6: (nfds, fd_set *readfds, …); the set is read from /proc/<pid>/mem. */
  select: readonly number[];
  /** epoll_wait and friends: the watched fds are listed in /proc/<pid>/fdinfo/<epfd>. */
  epoll: readonly number[];
}

const X64: WaitSyscalls = { read: [0, 19], poll: [7, 271], select: [23, 270], epoll: [232, 281, 441] };
const ARM64: WaitSyscalls = { read: [63, 65], poll: [73], select: [72], epoll: [22, 441] };

/** The table for this process's architecture, or null where it is not known (facts are then partial). */
export function waitSyscalls(arch: string = process.arch): WaitSyscalls | null {
  if (arch === 'x64') return X64;
  if (arch === 'arm64') return ARM64;
  return null;
}
