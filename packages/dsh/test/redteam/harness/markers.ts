/**
 * The markers a model should read when the fence stops an attempt. Their exact texts are being
 * finalized with the fence: they live here only, as patterns, and are checked softly — a missing
 * marker is reported beside the row's verdict, and fails the row only with
 * `DSH_REDTEAM_MARKERS=strict`. The verdict itself never depends on them.
 */

export const MARKERS = {
  syscall: /\[sandbox denied: syscall\b/,
  file: /\[sandbox denied: file\b/,
  pids: /\[sandbox limit: pids\]/,
  memory: /\[killed: out of memory in the sandbox\]/,
} as const;

export type MarkerName = keyof typeof MARKERS;

/** True when marker checks fail rows. */
export const STRICT_MARKERS = process.env.DSH_REDTEAM_MARKERS === 'strict';

/** Whether `text` carries the marker `name`. */
export function hasMarker(name: MarkerName, text: string): boolean {
  return MARKERS[name].test(text);
}
