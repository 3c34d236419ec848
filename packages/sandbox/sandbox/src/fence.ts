/**
 * The bubblewrap fence of an execution world, in mount order (a later mount covers an earlier):
 * - `/` read-only (submounts included: `/sys` too), a fresh `/dev` and `/proc`, with the kernel's
 *   knobs read-only or masked (kernel-masks.ts);
 * - a fresh `/tmp` of bounded size, an empty `/run` (and `/var/run` where it is a directory of
 *   its own), with the network on or off: the host's daemons' sockets live there;
 * - in the restricted modes, a private home over `$HOME` (private-home.ts) for programs' state;
 * - the paths a world must not read (`denyRead`: credential stores, `~/.dsh`, session logs, the
 *   composition's output root with other compositions' directories) hidden: an unreadable
 *   directory or file over each;
 * - the world's own programs read-only where a mask replaced their directory;
 * - the writable roots read-write (workspace-write) or the workspace read-only (read-only mode,
 *   so a workspace under `/tmp` is there too), with the files a person's tools later run
 *   unconfined read-only inside them (protect.ts);
 * - the composition's output directories read-write at the same paths (so a saved output path
 *   works inside as outside), with their `bin/` (the stand-in editor, run outside by an approved
 *   escalation) read-only;
 * - the host's unix path sockets masked wherever the world sees the host's files (host-sockets.ts);
 * - no network unless allowed, no capabilities, its own pid namespace and session, dying with its
 *   parent, and the seccomp program where one is given (world.ts).
 */

import { existsSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isInside } from '@dsh/core';
import { hostSocketArgs } from './host-sockets.js';
import { IF_FILE, ifExists, kernelMaskArgs } from './kernel-masks.js';
import { bindable, protectedPaths } from './protect.js';
import type { ResolvedSandbox } from './types.js';

/** Where the seccomp descriptor and the world's cgroup descriptor are filled in (see world.ts). */
export const CGROUP_SLOT = '--dsh-cgroup-fd';
/** The size of a world's `/tmp` unless the policy says: a RAM tmpfs, so it is bounded. */
export const WORLD_TMP_BYTES = 2 * 1024 * 1024 * 1024;
/** The size of a world's own `/run` and `/var/run` (RAM): sockets, pid files and locks, not data. */
export const WORLD_RUN_BYTES = 16 * 1024 * 1024;
/** The size of the empty tmpfs a hidden directory is masked with (read-only: nothing is written there). */
const MASK_TMPFS_BYTES = 4096;

/** What the fence needs besides the policy. */
export interface FenceInput {
  /** Directories bound read-write at the same path (the composition's output copies). */
  outputDirs: readonly string[];
  /** The world's own programs (Node.js, the runtime server), as the host sees them. */
  programs?: readonly string[];
  /** Whether a path exists where the fence runs (this machine unless a remote world says). */
  exists?: (path: string) => boolean;
  /** A file no one without capabilities can read, bound over masked files. @default '/dev/null' */
  unreadable?: string;
  /** Whether the fence runs on this machine (its files can be read here). @default true */
  local?: boolean;
  /** Output directories bound read-only (the server writes them through descriptors). @default false */
  outputReadOnly?: boolean;
  /** The binds of the world's private home (private-home.ts), before every mask. @default none */
  homeArgs?: readonly string[];
  /** Where the private home is bound (the real home's path). @default none */
  home?: string;
}

/** The bwrap options for `policy` (everything before `--`), and whether every part could be enforced. */
export function fenceArgs(
  policy: ResolvedSandbox,
  input: FenceInput,
): { args: string[]; enforcement: 'full' | 'partial' } {
  const exists = input.exists ?? existsSync;
  const unreadable = input.unreadable ?? '/dev/null';
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...kernelMaskArgs(unreadable)];
  args.push('--size', String(policy.tmpBytes ?? WORLD_TMP_BYTES), '--tmpfs', '/tmp');
  args.push('--size', String(WORLD_RUN_BYTES), '--tmpfs', '/run');
  if ((input.local ?? true) && isRealDir('/var/run'))
    args.push('--size', String(WORLD_RUN_BYTES), '--tmpfs', '/var/run'); // not Debian's link to /run
  // The private home: the masks below cover what it must not show, the writable roots what it holds.
  args.push(...(input.homeArgs ?? []));
  const { denied, emptied } = hiddenPaths(policy, input.outputDirs);
  // A hidden directory is an empty tmpfs of mode 000, made read-only once every mount inside it is
  // made (its owner cannot chmod it open or fill it).
  const deny = (path: string) => [
    ...ifExists(`${path}/.`, ['--perms', '000', '--size', String(MASK_TMPFS_BYTES), '--tmpfs', path]),
    ...ifFile(path, ['--ro-bind', unreadable, path]),
  ];
  for (const path of denied) args.push(...deny(path));
  // The output root: other compositions' directories vanish, this one's is bound back in below
  // (and the fence's own files, when they live there), so it stays traversable.
  for (const path of emptied) args.push(...ifExists(`${path}/.`, ['--tmpfs', path]));
  const hidden = [...denied, ...emptied];
  // The world's own programs stay visible when they live under a directory the fence replaces
  // (a checkout or a boot cache in /tmp): their top directory there is bound read-only — before
  // the writable roots, which may lie inside it.
  const programs = programDirs(input.programs ?? [], ['/tmp', '/run', ...hidden], exists);
  for (const dir of programs) args.push('--ro-bind', dir, dir);
  let enforcement: 'full' | 'partial' = 'full';
  if (policy.mode === 'workspace-write') {
    const present = policy.writableRoots.filter((root) => exists(root));
    if (present.length < policy.writableRoots.length) enforcement = 'partial'; // a missing root cannot be bound
    for (const root of present) args.push('--bind', root, root);
    const guard = protectedPaths(present, policy.unprotected ?? [], input.local ?? true);
    for (const dir of guard.writable) args.push(...ifExists(`${dir}/.`, ['--bind', dir, dir]));
    for (const path of guard.readOnly) args.push(...ifExists(path, ['--ro-bind', path, path]));
  } else {
    for (const root of policy.readableRoots ?? []) if (exists(root)) args.push('--ro-bind', root, root);
  }
  // A hidden path inside a root (a workspace's `.env`) is hidden again over the root's bind, and
  // each directory between the root and it is bound onto itself: a mount point cannot be renamed,
  // so no command moves the path out from under its mask for a later world to read.
  const roots = policy.mode === 'workspace-write' ? policy.writableRoots : (policy.readableRoots ?? []);
  const self = policy.mode === 'workspace-write' ? '--bind' : '--ro-bind';
  for (const path of denied) {
    const root = roots.find((r) => isInside(path, r) && r !== path);
    if (!root) continue;
    const between: string[] = [];
    for (let dir = dirname(path); dir !== root && isInside(dir, root); dir = dirname(dir)) between.unshift(dir);
    // Never through a link that leads out of the roots (bubblewrap would bind where it points).
    const local = input.local ?? true;
    for (const dir of between) {
      const at = local ? bindable(dir, root, roots) : dir;
      if (at !== null) args.push(...ifExists(`${at}/.`, [self, at, at]));
    }
    args.push(...deny(path));
  }
  // The composition's output copies: written by the world's server (through descriptors, when
  // they are read-only here), read by later commands; never replaced by one.
  for (const dir of input.outputDirs) {
    if (!exists(dir)) continue;
    if (input.outputReadOnly) args.push('--ro-bind', dir, dir);
    else
      args.push('--bind', dir, dir, ...ifExists(join(dir, 'bin'), ['--ro-bind', join(dir, 'bin'), join(dir, 'bin')]));
  }
  // The host's sockets wherever the world sees the host's files (last: over every bind above).
  const rebound = [...roots, ...input.outputDirs, ...programs, ...(input.home ? [input.home] : [])];
  args.push(...hostSocketArgs(unreadable, hidden, rebound));
  for (const path of denied) args.push(...ifExists(`${path}/.`, ['--remount-ro', path]));
  if (!policy.network) args.push('--unshare-net');
  // No capabilities inside, even when dsh runs as root: otherwise a command could remount `/`
  // read-write or undo the masks. Its own pid namespace: no view of (or signal to) host
  // processes, and everything in it dies with the world. Its own session: no way back to the
  // terminal dsh runs on (terminals inside get a session of their own from their PTY).
  // Its own IPC namespace: the host's (and other worlds') SysV shared memory, semaphores and
  // message queues, and POSIX message queues, are not the world's.
  args.push('--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session');
  return { args, enforcement };
}

/** `args`, applied only where `path` exists and is not a directory (world.ts expands it). */
function ifFile(path: string, args: string[]): string[] {
  return [IF_FILE, path, String(args.length), ...args];
}

function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What a world of `policy` must not see: `denied`, the policy's `denyRead` (unreadable), and
 * `emptied`, the parents of the output directories (other compositions' output lives beside this
 * one's; they are replaced by an empty directory), except where they would cover a writable root.
 */
function hiddenPaths(policy: ResolvedSandbox, outputDirs: readonly string[]): { denied: string[]; emptied: string[] } {
  const roots = [...policy.writableRoots, ...(policy.readableRoots ?? [])];
  const covers = (path: string): boolean => roots.some((r) => r === path || r.startsWith(`${path}/`));
  const denied = new Set<string>();
  for (const path of policy.denyRead ?? []) if (!covers(path)) denied.add(path);
  const emptied = new Set<string>();
  for (const dir of outputDirs) {
    const parent = dirname(dir);
    const inDenied = [...denied].some((d) => parent === d || parent.startsWith(`${d}/`));
    if (parent !== '/' && !covers(parent) && !inDenied && !parent.startsWith('/tmp/') && parent !== '/tmp') {
      emptied.add(parent);
    }
  }
  return { denied: [...denied], emptied: [...emptied] };
}

/**
 * For each program under a masked directory, the narrowest directory that holds it and what it
 * loads: the nearest one above it with a `node_modules` (a checkout's root, a boot cache's
 * `runtime/<hash>`), else its own directory — bound read-only, never a whole shared temp dir.
 */
function programDirs(
  programs: readonly string[],
  masked: readonly string[],
  exists: (path: string) => boolean,
): string[] {
  const dirs = new Set<string>();
  for (const path of programs) {
    const top = masked.find((dir) => path.startsWith(`${dir}/`));
    if (!top) continue;
    let chosen = dirname(path);
    for (let at = dirname(path); at !== top && at.startsWith(`${top}/`); at = dirname(at)) {
      if (exists(join(at, 'node_modules'))) {
        chosen = at;
        break;
      }
    }
    if (exists(chosen)) dirs.add(chosen);
  }
  return [...dirs];
}
