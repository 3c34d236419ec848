/**
 * Strict option objects: an unknown or misplaced key is refused, naming the key and the
 * nearest valid one (or where it belongs), so a typo never falls back to defaults in silence.
 */
import { DshError } from '@dsh/core';

/** Edit distance of two short strings (keys). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] as number;
      row[j] = Math.min(
        up + 1,
        (row[j - 1] as number) + 1,
        diag + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1),
      );
      diag = up;
    }
  }
  return row[b.length] as number;
}

/** The valid key closest to `key`, when it is close enough to be a typo of it. */
export function nearestKey(key: string, valid: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of valid) {
    const d = distance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : null;
}

/**
 * Refuses keys of `value` outside `valid`. `elsewhere` maps keys that belong at another level to
 * their right place (e.g. `approver` → `config.approver`).
 * @throws DshError `INVALID_ARGUMENT` with `data.field` and `data.suggestion`.
 */
export function checkKeys(
  value: Record<string, unknown>,
  valid: readonly string[],
  where: string,
  elsewhere: Readonly<Record<string, string>> = {},
): void {
  for (const key of Object.keys(value)) {
    if (valid.includes(key)) continue;
    const field = where ? `${where}.${key}` : key;
    const suggestion = elsewhere[key] ?? nearestKey(key, valid);
    const hint = suggestion ? `; did you mean ${suggestion}?` : `; valid keys: ${valid.join(', ')}`;
    throw new DshError('INVALID_ARGUMENT', `compose option "${field}" is not a known key${hint}`, {
      data: { field, suggestion },
    });
  }
}
