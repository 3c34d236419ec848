/**
 * Kernel knobs on the host (/proc/sys, /sys): read, shown writable by a row's user with a dry
 * write of the value already there, and restored in the row's cleanup, checked. A knob whose dry
 * write fails is not armed: the suite never changes what it could not put back.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Host } from './host.js';

/** The knob's value, trimmed, or null when it is missing or unreadable. */
export function readKnob(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Arms a knob for change: it exists, its value is read, the row's user rewrites that same value
 * on the host, and a restore of it is registered with the host. Returns the value, or the reason
 * it cannot be armed.
 */
export async function armKnob(host: Host, path: string): Promise<{ original: string } | { unarmed: string }> {
  if (!existsSync(path)) return { unarmed: `${path} does not exist on this kernel` };
  const original = readKnob(path);
  if (original === null) return { unarmed: `${path} is not readable on the host` };
  const dry = await host.sh(`printf '%s\\n' "$(cat ${path})" > ${path}`);
  if (dry.code !== 0) {
    return {
      unarmed: `${host.user.name} cannot write ${path} on the host (${dry.stderr.trim() || `exit ${dry.code}`})`,
    };
  }
  if (readKnob(path) !== original) return { unarmed: `a dry write of ${path} changed it; nothing to restore to` };
  host.defer(() => restoreKnob(path, original));
  return { original };
}

/**
 * Puts `original` back (as root) and checks it.
 * @throws when the knob does not read back as it was: the machine needs a person.
 */
export function restoreKnob(path: string, original: string): void {
  if (readKnob(path) === original) return;
  writeFileSync(path, `${original}\n`);
  const now = readKnob(path);
  if (now !== original)
    throw new Error(`could not restore ${path}: it is ${JSON.stringify(now)}, was ${JSON.stringify(original)}`);
}

/** SHA-256 (hex) of a string or buffer. */
export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
