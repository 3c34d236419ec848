/**
 * The environment of an approved escalation: it runs outside the fence, so nothing a confined
 * command could have planted may steer it. Variables that make bash or the dynamic loader run
 * other code (`BASH_ENV`, `ENV`, `LD_PRELOAD`, …) are removed, and `PATH` loses every entry a
 * confined command could write (inside the writable roots) and every relative one (`.`, empty).
 * The stand-in editor lives on a path the fence binds read-only, and git's hooks and config are
 * read-only in the fence too (see @dsh/sandbox), so the approved command is exactly what runs.
 */
import { isAbsolute, resolve } from 'node:path';
import { isInside } from '@dsh/core';

/** Variables removed from an escalated run: each makes a shell or the loader run code it names. */
export const ESCALATION_DROPPED_ENV: readonly string[] = [
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'PYTHONSTARTUP',
  'NODE_OPTIONS',
  'PERL5OPT',
  'RUBYOPT',
  'GIT_CONFIG_GLOBAL',
  'GIT_EXEC_PATH',
];

/** `path` (a PATH value) without entries under `writable` or relative ones; null when nothing changes. */
export function trustedPath(path: string | undefined, writable: readonly string[]): string | null {
  if (path === undefined) return null;
  const entries = path.split(':');
  const kept = entries.filter((e) => e !== '' && isAbsolute(e) && !writable.some((root) => isInside(resolve(e), root)));
  return kept.length === entries.length ? null : kept.join(':');
}

/**
 * The trusted `env` entries of an escalated run: tombstones for {@link ESCALATION_DROPPED_ENV},
 * and a trusted PATH when the inherited one had entries a confined command could write.
 */
export function escalatedEnv(
  writable: readonly string[],
  parentPath: string | undefined = process.env.PATH,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const name of ESCALATION_DROPPED_ENV) env[name] = undefined;
  const path = trustedPath(parentPath, writable);
  if (path !== null) env.PATH = path;
  return env;
}
