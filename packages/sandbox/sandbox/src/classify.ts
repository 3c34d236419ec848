/**
 * Conservative denial classification from stderr only: "denied" only on strong evidence — a
 * read-only-file-system error (only the sandbox's read-only binds produce it) naming a path
 * outside the writable roots, or a network error while the network is off. Permission errors
 * are not evidence: a read of /etc/shadow fails the same way outside the sandbox.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { ResolvedSandbox, RunEvidence, SandboxFacts } from './types.js';

/** Error texts of a write refused by a read-only bind. */
const READ_ONLY = /read-only file system|EROFS/i;
/**
 * Error texts of network failures inside an isolated network namespace: the errno texts, the
 * resolver's, and how curl and wget say them ("Couldn't connect to server", "Failed to connect",
 * "Could not resolve host", "unable to resolve host address").
 */
const NETWORK =
  /network is unreachable|ENETUNREACH|connection refused|ECONNREFUSED|could not resolve|couldn't connect|failed to connect|unable to resolve host|temporary failure in name resolution|name or service not known|EAI_AGAIN|ENOTFOUND|getaddrinfo|no address associated/i;
/** A socket in the masked /run that the command tried to reach. */
const MASKED_SOCKET =
  /(?:connect|socket)[\s\S]*(?:no such file or directory|ENOENT)|(?:no such file or directory|ENOENT)[\s\S]*\/run\//i;

/** Start failures that mean the world itself failed (its channel was lost), not the command. */
const RUNNER_FAILURES = new Set(['WORLD_DISCONNECTED']);

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Absolute paths mentioned on lines that report a refusal. */
function refusedPaths(text: string, kind: RegExp): string[] {
  const paths: string[] = [];
  for (const line of text.split('\n')) {
    if (!kind.test(line)) continue;
    for (const m of line.matchAll(/(?:^|[\s'"`(:])(\/[^\s'"`):,]*)/g)) paths.push(resolve(m[1] as string));
  }
  return paths;
}

/** Classifies a finished confined run. */
export function classifyRun(
  evidence: RunEvidence,
  policy: ResolvedSandbox,
  enforcement: 'full' | 'partial',
): SandboxFacts {
  const base: SandboxFacts = { mode: policy.mode, denied: false, denial: null, enforcement, runnerFailed: false };
  if (policy.mode === 'danger-full-access') return base;
  // Told by the channel: a command's own text (even one that prints "bwrap: …") never counts.
  if (evidence.startError && RUNNER_FAILURES.has(evidence.startError)) return { ...base, runnerFailed: true };
  if (evidence.exitCode === 0) return base;
  const text = evidence.stderr; // stdout is the command's data, not its errors
  const outside = (p: string): boolean => !policy.writableRoots.some((root) => inside(p, root));
  if (READ_ONLY.test(text)) {
    const paths = refusedPaths(text, READ_ONLY);
    // EROFS only happens on our read-only binds: it is a denial even when the path is not named.
    if (paths.length === 0 || paths.some(outside)) return { ...base, denied: true, denial: 'file' };
  }
  if (!policy.network && (NETWORK.test(text) || (MASKED_SOCKET.test(text) && /\/run\//.test(text)))) {
    return { ...base, denied: true, denial: 'network' };
  }
  return base;
}
