/**
 * What a runtime server tells about the machine it runs on, for `dumpConfig()` and for the
 * layers that must use the far side's paths: OS, user, home, temp dir, and whether a bubblewrap
 * sandbox runner works there (probed only when asked: a server inside a fence needs no probe).
 * Where it works, the fence's files are made there too (fence-files.ts): the execute-only Node.js
 * the world's server runs from, so it is not dumpable, and the unreadable file hidden paths get.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir, hostname, release, tmpdir, type } from 'node:os';
import { prepareFenceFiles } from './fence-files.js';

/** Where the far side's sandbox runner is looked for. */
export const REMOTE_BWRAP_PATH = '/usr/bin/bwrap';
/** The longest the sandbox probe may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** Why bubblewrap cannot confine here, or null when it works. */
function probeBwrap(path: string): string | null {
  if (process.platform !== 'linux') return `bubblewrap confinement is Linux-only (this is ${process.platform})`;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return `no sandbox runner at ${path}`;
  }
  const r = spawnSync(path, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], {
    timeout: PROBE_TIMEOUT_MS,
    encoding: 'utf8',
  });
  return r.status === 0
    ? null
    : `the sandbox runner ${path} does not start (${(r.stderr || r.error?.message || '').trim()})`;
}

/** The fence's files here, or nothing when they cannot be made (the world then runs without them). */
function fenceFiles(): { node?: string; unreadable?: string } {
  try {
    const files = prepareFenceFiles();
    return { ...(files.node ? { node: files.node } : {}), unreadable: files.unreadable };
  } catch {
    return {};
  }
}

/** What the sandbox probe found: the runner, why it cannot confine (or null), and the fence's files. */
function sandboxFacts(): Record<string, unknown> {
  const unavailable = probeBwrap(REMOTE_BWRAP_PATH);
  return { bwrapPath: REMOTE_BWRAP_PATH, unavailable, ...(unavailable === null ? fenceFiles() : {}) };
}

/** Facts of this machine; `sandbox` only when `probeSandbox`. */
export function hostFacts(entry: string, probeSandbox: boolean): Record<string, unknown> {
  let home: string | null = null;
  try {
    home = homedir();
  } catch {
    // no home for this user
  }
  return {
    entry,
    hostname: hostname(),
    os: `${type()} ${release()}`,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    home,
    tmpdir: tmpdir(),
    ...(probeSandbox ? { sandbox: sandboxFacts() } : {}),
  };
}
