/**
 * Named keys a send may press, validated by the service (the backend encodes them for the
 * terminal's current mode). A single printable character is a key too.
 */
import { DshError } from '@dsh/core';

const CONTROL = Array.from({ length: 26 }, (_, i) => `C-${String.fromCharCode(97 + i)}`);
const FUNCTION = Array.from({ length: 12 }, (_, i) => `F${i + 1}`);

/** Every key name a send accepts. */
export const KEY_NAMES: readonly string[] = [
  'Enter',
  'Escape',
  'Tab',
  'Backspace',
  'Space',
  'Delete',
  'Insert',
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  ...CONTROL,
  ...FUNCTION,
];

const KNOWN = new Set(KEY_NAMES);

/** One printable character is a key of its own (`q` to quit a pager, `y` to answer). */
export function isCharacterKey(name: string): boolean {
  return [...name].length === 1 && !/[\p{Cc}\p{Cs}]/u.test(name);
}

/** Longest list of keys one send may press. */
export const MAX_KEYS_PER_SEND = 256;

/** @throws DshError `INVALID_ARGUMENT` naming the unknown keys and listing the valid names. */
export function checkKeys(keys: unknown): string[] {
  if (keys === undefined) return [];
  if (!Array.isArray(keys) || keys.length > MAX_KEYS_PER_SEND || !keys.every((k) => typeof k === 'string')) {
    throw new DshError('INVALID_ARGUMENT', `keys must be a list of at most ${MAX_KEYS_PER_SEND} key names.`, {
      data: { field: 'keys' },
    });
  }
  const unknown = keys.filter((k) => !KNOWN.has(k) && !isCharacterKey(k));
  if (unknown.length > 0) {
    throw new DshError(
      'INVALID_ARGUMENT',
      `Unknown key name(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}; valid keys: Enter, Escape, Tab, Backspace, Space, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, C-a … C-z, F1 … F12, or one printable character.`,
      { data: { field: 'keys', unknown } },
    );
  }
  return keys as string[];
}
