/**
 * The bubblewrap fence of an execution world: read-only `/`, the writable roots bound
 * read-write, a fresh `/tmp`, `/proc` and `/dev`, the composition's output directories bound
 * read-write at the same paths (so a saved output path works inside as outside), no network
 * (and an empty `/run`) unless allowed, no capabilities, its own pid namespace and session, and
 * it dies with its parent.
 */
import { existsSync } from 'node:fs';
import type { ResolvedSandbox } from './types.js';

/** Where the world's own cgroup is bound in, when its channel has one (see world.ts). */
export const CGROUP_SLOT = '--dsh-cgroup-bind';

/** The bwrap options for `policy` (everything before `--`), and whether every part could be enforced. */
export function fenceArgs(
  policy: ResolvedSandbox,
  outputDirs: readonly string[],
  programs: readonly string[] = [],
): { args: string[]; enforcement: 'full' | 'partial' } {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // No network also means no daemons: their sockets live in /run, which a network namespace
  // does not cover (path sockets are files). Sockets elsewhere stay reachable (see README).
  if (!policy.network) args.push('--tmpfs', '/run');
  // The world's own programs (Node.js, the runtime server and what it loads) stay visible when
  // they live under a directory the fence replaces (a checkout or a boot cache in /tmp): their
  // top directory there is bound read-only — before the writable roots, which may lie inside it.
  for (const dir of maskedTops(programs, policy.network)) args.push('--ro-bind', dir, dir);
  let enforcement: 'full' | 'partial' = 'full';
  if (policy.mode === 'workspace-write') {
    for (const root of policy.writableRoots) {
      if (existsSync(root)) args.push('--bind', root, root);
      else enforcement = 'partial'; // a root that does not exist cannot be bound (nor written)
    }
  }
  // The composition's output copies: written by the world's server, read by later commands.
  for (const dir of outputDirs) if (existsSync(dir)) args.push('--bind', dir, dir);
  if (!policy.network) args.push('--unshare-net');
  // No capabilities inside, even when dsh runs as root: otherwise a command could remount `/`
  // read-write or undo the masks. Its own pid namespace: no view of (or signal to) host
  // processes, and everything in it dies with the world. Its own session: no way back to the
  // terminal dsh runs on (terminals inside get a session of their own from their PTY).
  args.push('--cap-drop', 'ALL', '--unshare-pid', '--die-with-parent', '--new-session', CGROUP_SLOT);
  return { args, enforcement };
}

/** The directories the fence replaces with empty ones. */
function masked(network: boolean): string[] {
  return network ? ['/tmp'] : ['/tmp', '/run'];
}

/** For each program under a masked directory, that directory's top entry holding it (`/tmp/x` of `/tmp/x/y/z`). */
function maskedTops(programs: readonly string[], network: boolean): string[] {
  const tops = new Set<string>();
  for (const path of programs) {
    for (const dir of masked(network)) {
      if (!path.startsWith(`${dir}/`)) continue;
      const top = `${dir}/${path.slice(dir.length + 1).split('/')[0]}`;
      if (existsSync(top)) tops.add(top);
    }
  }
  return [...tops];
}
