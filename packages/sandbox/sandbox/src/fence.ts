/**
 * The bubblewrap fence of an execution world: read-only `/`, the writable roots bound
 * read-write, a fresh `/tmp`, `/proc` and `/dev`, the composition's output directories bound
 * read-write at the same paths (so a saved output path works inside as outside), no network
 * (and an empty `/run`) unless allowed, no capabilities, its own pid namespace and session, and
 * it dies with its parent.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ResolvedSandbox } from './types.js';

/** Where the world's own cgroup is bound in, when its channel has one (see world.ts). */
export const CGROUP_SLOT = '--dsh-cgroup-bind';

/** The bwrap options for `policy` (everything before `--`), and whether every part could be enforced. */
export function fenceArgs(
  policy: ResolvedSandbox,
  outputDirs: readonly string[],
  programs: readonly string[] = [],
  /** Whether a path exists where the fence runs (this machine unless a remote world says). */
  exists: (path: string) => boolean = existsSync,
): { args: string[]; enforcement: 'full' | 'partial' } {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // No network also means no daemons: their sockets live in /run, which a network namespace
  // does not cover (path sockets are files). Sockets elsewhere stay reachable (see README).
  if (!policy.network) args.push('--tmpfs', '/run');
  // The world's own programs (Node.js, the runtime server and what it loads) stay visible when
  // they live under a directory the fence replaces (a checkout or a boot cache in /tmp): their
  // top directory there is bound read-only — before the writable roots, which may lie inside it.
  for (const dir of programDirs(programs, policy.network, exists)) args.push('--ro-bind', dir, dir);
  let enforcement: 'full' | 'partial' = 'full';
  if (policy.mode === 'workspace-write') {
    for (const root of policy.writableRoots) {
      if (exists(root)) args.push('--bind', root, root);
      else enforcement = 'partial'; // a root that does not exist cannot be bound (nor written)
    }
  }
  // The composition's output copies: written by the world's server, read by later commands.
  for (const dir of outputDirs) if (exists(dir)) args.push('--bind', dir, dir);
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

/**
 * For each program under a masked directory, the narrowest directory that holds it and what it
 * loads: the nearest one above it with a `node_modules` (a checkout's root, a boot cache's
 * `runtime/<hash>`), else its own directory — bound read-only, never a whole shared temp dir.
 */
function programDirs(programs: readonly string[], network: boolean, exists: (path: string) => boolean): string[] {
  const dirs = new Set<string>();
  for (const path of programs) {
    const top = masked(network).find((dir) => path.startsWith(`${dir}/`));
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
