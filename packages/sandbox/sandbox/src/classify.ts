/**
 * Conservative denial classification from stderr only: "denied" only on strong evidence — a
 * read-only-file-system error (only the sandbox's read-only binds produce it) naming a path
 * outside the writable roots, or a network error while the network is off. Permission errors
 * are not evidence: a read of /etc/shadow fails the same way outside the sandbox.
 */
import { resolve } from 'node:path';
import { isInside } from '@dsh/core';
import { SECCOMP_ALWAYS_DENIED } from './seccomp/index.js';
import type { ResolvedSandbox, RunEvidence, SandboxFacts } from './types.js';

/** The error text of a call the seccomp program refused (EPERM). */
const NOT_PERMITTED = /operation not permitted|EPERM/i;
/** Tools whose refusal names the call they make, not the call itself. */
const TOOL_CALLS: Record<string, string> = {
  strace: 'ptrace',
  gdb: 'ptrace',
  ltrace: 'ptrace',
  nsenter: 'setns',
  unshare: 'unshare',
  mount: 'mount',
  umount: 'umount2',
  swapon: 'swapon',
  swapoff: 'swapoff',
  'perf stat': 'perf_event_open',
  keyctl: 'keyctl',
  bpftool: 'bpf',
};
/**
 * Any name the refusal of a denied call may carry, as a whole word (longest first, so a longer
 * name wins over its prefix); compiled once, not per line and name.
 */
const CALL_NAME = new RegExp(
  `(?:^|[^A-Za-z0-9_])(${[...Object.keys(SECCOMP_ALWAYS_DENIED), 'unshare', 'clone', ...Object.keys(TOOL_CALLS)]
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(' ', '\\s+'))
    .join('|')})(?:[^A-Za-z0-9_]|$)`,
);
/** A permission error's text. */
const PERMISSION = /permission denied|EACCES/i;

/** The denied call a line of stderr names, or null. */
function refusedCall(line: string): string | null {
  if (!NOT_PERMITTED.test(line)) return null;
  const name = CALL_NAME.exec(line)?.[1]?.replace(/\s+/, ' ');
  return name === undefined ? null : (TOOL_CALLS[name] ?? name);
}

/** Error texts of a write refused by a read-only bind. */
const READ_ONLY = /read-only file system|EROFS/i;
/**
 * Error texts of network failures inside an isolated network namespace: the errno texts, the
 * resolver's, and how curl and wget say them ("Couldn't connect to server", "Failed to connect",
 * "Could not resolve host", "unable to resolve host address").
 */
const NETWORK =
  /network is unreachable|ENETUNREACH|connection refused|ECONNREFUSED|could not resolve|couldn't connect|failed to connect|unable to resolve host|temporary failure in name resolution|name or service not known|EAI_AGAIN|ENOTFOUND|getaddrinfo|no address associated/i;
/** A refused connection: with the network off, the world's own loopback answering, not the fence. */
const REFUSED = /connection refused|ECONNREFUSED/i;
/** Failures that mean there was no route at all (the fence's doing with the network off). */
const NO_ROUTE =
  /network is unreachable|ENETUNREACH|could not resolve|unable to resolve host|temporary failure in name resolution|name or service not known|EAI_AGAIN|ENOTFOUND|getaddrinfo|no address associated/i;
/**
 * The denial's detail when a program of a world that reaches hosts by name looked a name up
 * itself: it ignored the proxy variables (Node.js 20's fetch does, for one).
 */
export const PROXY_BYPASSED = 'by a name lookup outside the proxy';
/** A loopback address and port a command names (curl, nc, node, bash's /dev/tcp). */
const LOOPBACK_TARGET = /\b(?:127\.\d+\.\d+\.\d+|localhost|\[?::1\]?)(?::|\/| port )(\d{1,5})\b/i;
/** A socket in the masked /run that the command tried to reach. */
const MASKED_SOCKET =
  /(?:connect|socket)[\s\S]*(?:no such file or directory|ENOENT)|(?:no such file or directory|ENOENT)[\s\S]*\/run\//i;

/** Start failures that mean the world itself failed (its channel was lost), not the command. */
const RUNNER_FAILURES = new Set(['WORLD_DISCONNECTED']);

/** Absolute paths mentioned on lines that report a refusal. */
function refusedPaths(text: string, kind: RegExp): string[] {
  const paths: string[] = [];
  for (const line of text.split('\n')) {
    if (!kind.test(line)) continue;
    for (const m of line.matchAll(/(?:^|[\s'"`(:])(\/[^\s'"`):,]*)/g)) paths.push(resolve(m[1] as string));
  }
  return paths;
}

/**
 * The world limit a run hit, from the host's counters: a fork refused at the pids limit while it
 * ran, or a process of it killed out of memory (and the run ended by SIGKILL). Null without counters.
 */
function limitHit(evidence: RunEvidence): 'pids' | 'memory' | null {
  const before = evidence.limitsBefore;
  const after = evidence.limitsAfter;
  if (!before || !after) return null;
  if (after.oom > before.oom && (evidence.signal === 'SIGKILL' || evidence.exitCode === 137)) return 'memory';
  if (after.pids > before.pids) return 'pids';
  return null;
}

/** Classifies a finished confined run. */
export function classifyRun(
  evidence: RunEvidence,
  policy: ResolvedSandbox,
  enforcement: 'full' | 'partial',
  hostListens?: (port: number) => boolean,
): SandboxFacts {
  const base: SandboxFacts = { mode: policy.mode, denied: false, denial: null, enforcement, runnerFailed: false };
  if (policy.mode === 'danger-full-access') return base;
  // Told by the channel: a command's own text (even one that prints "bwrap: …") never counts.
  if (evidence.startError && RUNNER_FAILURES.has(evidence.startError)) return { ...base, runnerFailed: true };
  const limit = limitHit(evidence);
  if (limit) return { ...base, limit };
  // The world's proxy refused a destination while the run went on: host-side evidence, told
  // even when the program shrugged it off (curl exits 0 after a 403 page).
  const refused = evidence.refused?.[0];
  if (refused) {
    const why = refused.reason ? ` (${refused.reason})` : '';
    return { ...base, denied: true, denial: 'network', denialDetail: `to ${refused.host}${why}` };
  }
  if (evidence.exitCode === 0) return base;
  const text = evidence.stderr; // stdout is the command's data, not its errors
  const outside = (p: string): boolean => !policy.writableRoots.some((root) => isInside(p, root));
  // A read refused in a hidden path: the fence put an unreadable file or directory there.
  const hidden = policy.denyRead ?? [];
  if (hidden.length > 0 && PERMISSION.test(text)) {
    const path = refusedPaths(text, PERMISSION).find((p) => hidden.some((h) => isInside(p, h)));
    if (path) return { ...base, denied: true, denial: 'file', denialDetail: path };
  }
  for (const line of text.split('\n')) {
    const call = refusedCall(line);
    if (call) return { ...base, denied: true, denial: 'syscall', denialDetail: call };
  }
  if (READ_ONLY.test(text)) {
    const paths = refusedPaths(text, READ_ONLY);
    // EROFS only happens on our read-only binds: it is a denial even when the path is not named.
    if (paths.length === 0 || paths.some(outside)) {
      return { ...base, denied: true, denial: 'file', denialDetail: paths.find(outside) ?? null };
    }
  }
  if (!policy.network && networkDenied(text, hostListens)) {
    // A world that reaches named hosts has no name service of its own: only its proxy resolves.
    const lookedUp = policy.hosts && NO_ROUTE.test(text) && !MASKED_SOCKET.test(text);
    return { ...base, denied: true, denial: 'network', ...(lookedUp ? { denialDetail: PROXY_BYPASSED } : {}) };
  }
  return base;
}

/**
 * Whether a network failure with the network off is the fence's doing: no route or no name
 * resolution is; a connection to the world's own loopback is only when the host listens on that
 * port (where the host is this machine: `hostListens`), otherwise nothing listened where it
 * connected and the failure is the command's own.
 */
function networkDenied(text: string, hostListens: ((port: number) => boolean) | undefined): boolean {
  if (MASKED_SOCKET.test(text) && /\/run\//.test(text)) return true;
  const loopback = LOOPBACK_TARGET.exec(text);
  if (loopback) return hostListens?.(Number(loopback[1])) === true;
  // A refusal that names no target: nothing tells the fence's from the command's; as before, the fence's.
  return NO_ROUTE.test(text) || REFUSED.test(text) || NETWORK.test(text);
}
