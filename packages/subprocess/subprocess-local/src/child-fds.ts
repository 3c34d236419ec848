/**
 * Descriptors this process holds that no child may inherit. A process can hold descriptors it
 * did not open (without close-on-exec), which Node.js cannot mark after the fact: the runtime
 * server of a sandbox world gets its channel that way, and a command that inherited it could
 * write frames into it. Every child this process spawns gets /dev/null on each of them instead
 * (its stdio array covers them), so the inherited ones are replaced before the child runs.
 * Terminals need nothing: their PTY child closes every descriptor past stdio.
 */

import type { StdioNull, StdioPipe } from 'node:child_process';
import { openSync } from 'node:fs';

/** One entry of a spawn's stdio array, as this module builds them. */
export type StdioEntry = StdioPipe | StdioNull | 'inherit' | number;

/** The highest descriptor number that can be shadowed: each one below it costs a stdio entry. */
export const MAX_SHADOWED_FD = 64;

const shadowed: number[] = [];
let devNull = -1;

/**
 * Marks descriptors `fds` as held but never to be inherited by children.
 * @throws RangeError for a descriptor below 3 or above {@link MAX_SHADOWED_FD}.
 */
export function shadowInheritedFds(fds: readonly number[]): void {
  for (const fd of fds) {
    if (!Number.isInteger(fd) || fd < 3 || fd > MAX_SHADOWED_FD) throw new RangeError(`cannot shadow descriptor ${fd}`);
    if (!shadowed.includes(fd)) shadowed.push(fd);
  }
}

/** `stdio` extended so that every shadowed descriptor (and every one between) is /dev/null in the child. */
export function withShadowedFds(stdio: readonly StdioEntry[]): StdioEntry[] {
  if (shadowed.length === 0) return [...stdio];
  if (devNull < 0) devNull = openSync('/dev/null', 'r+'); // opened close-on-exec; dup2 clears that in the child
  const out = [...stdio];
  const top = Math.max(...shadowed);
  for (let fd = out.length; fd <= top; fd++) out.push(devNull);
  return out;
}
