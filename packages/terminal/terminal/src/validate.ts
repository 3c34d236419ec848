/**
 * Input checks of the terminal service: every malformed field is `INVALID_ARGUMENT` naming it.
 */
import { isAbsolute } from 'node:path';
import { DshError } from '@dsh/core';
import { checkKeys } from './keys.js';
import { DEFAULT_COLS, DEFAULT_ROWS, MAX_COLS, MAX_ROWS, MAX_SCROLLBACK_PAGE, MAX_SEND_TIMEOUT_MS } from './limits.js';
import type { SendInput } from './types.js';

/** Owner-local names: short, printable, no spaces. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

function invalid(field: string, problem: string): never {
  throw new DshError('INVALID_ARGUMENT', `terminal ${field} ${problem}.`, { data: { field } });
}

function size(value: unknown, field: 'cols' | 'rows', fallback: number): number {
  if (value === undefined) return fallback;
  const max = field === 'cols' ? MAX_COLS : MAX_ROWS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
    invalid(field, `must be an integer in [1, ${max}]`);
  }
  return value;
}

/** A checked terminal size. */
export function checkSize(value: unknown): { cols: number; rows: number } {
  if (typeof value !== 'object' || value === null) invalid('size', 'must be { cols, rows }');
  const { cols, rows } = value as Record<string, unknown>;
  if (cols === undefined) invalid('cols', 'is required');
  if (rows === undefined) invalid('rows', 'is required');
  return { cols: size(cols, 'cols', DEFAULT_COLS), rows: size(rows, 'rows', DEFAULT_ROWS) };
}

/** Checked open options. */
export function checkOpen(options: unknown): {
  type: string;
  name: string | null;
  cwd: string | undefined;
  cols: number;
  rows: number;
} {
  if (typeof options !== 'object' || options === null) invalid('options', 'must be an object');
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!['type', 'name', 'cwd', 'cols', 'rows'].includes(key)) invalid(key, 'is not a known option');
  }
  if (typeof o.type !== 'string' || o.type === '') invalid('type', 'must name a backend');
  if (o.name !== undefined && (typeof o.name !== 'string' || !NAME.test(o.name))) {
    invalid('name', 'must be 1-64 letters, digits, dots, dashes or underscores');
  }
  if (o.cwd !== undefined && (typeof o.cwd !== 'string' || !isAbsolute(o.cwd)))
    invalid('cwd', 'must be an absolute path');
  return {
    type: o.type,
    name: (o.name as string | undefined) ?? null,
    cwd: o.cwd as string | undefined,
    cols: size(o.cols, 'cols', DEFAULT_COLS),
    rows: size(o.rows, 'rows', DEFAULT_ROWS),
  };
}

/** Checked send input. */
export function checkSend(input: unknown): SendInput {
  if (typeof input !== 'object' || input === null) invalid('input', 'must be { text, timeoutMs, submit?, keys? }');
  const { text, timeoutMs, submit, keys, paste } = input as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!['text', 'timeoutMs', 'submit', 'keys', 'paste'].includes(key)) invalid(key, 'is not a known field');
  }
  if (typeof text !== 'string') invalid('text', 'must be a string');
  if (submit !== undefined && typeof submit !== 'boolean') invalid('submit', 'must be a boolean');
  if (paste !== undefined && typeof paste !== 'boolean') invalid('paste', 'must be a boolean');
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isFinite(timeoutMs) ||
    timeoutMs <= 0 ||
    timeoutMs > MAX_SEND_TIMEOUT_MS
  ) {
    invalid('timeoutMs', `must be a number of milliseconds in (0, ${MAX_SEND_TIMEOUT_MS}]`);
  }
  const named = checkKeys(keys);
  // No text, no keys and submit off is a wait (nothing typed); an empty key list with Enter left on is a slip.
  if (text === '' && submit !== false && keys !== undefined && named.length === 0) {
    invalid(
      'text',
      'is empty and the key list is empty: there is nothing to send (give text or keys; submit: false with neither only waits)',
    );
  }
  return { text, timeoutMs: Math.ceil(timeoutMs), submit: submit ?? true, keys: named, paste: paste ?? true };
}

/** Checked wait of a cancel. */
export function checkWait(timeoutMs: unknown): number {
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isFinite(timeoutMs) ||
    timeoutMs <= 0 ||
    timeoutMs > MAX_SEND_TIMEOUT_MS
  ) {
    invalid('timeoutMs', `must be a number of milliseconds in (0, ${MAX_SEND_TIMEOUT_MS}]`);
  }
  return Math.ceil(timeoutMs);
}

/** Checked scrollback page request. */
export function checkPage(page: unknown): { offset?: number; limit: number } {
  if (typeof page !== 'object' || page === null) invalid('page', 'must be { offset?, limit }');
  const { offset, limit } = page as Record<string, unknown>;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SCROLLBACK_PAGE) {
    invalid('limit', `must be an integer in [1, ${MAX_SCROLLBACK_PAGE}]`);
  }
  if (offset !== undefined && (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)) {
    invalid('offset', 'must be a non-negative integer');
  }
  return offset === undefined ? { limit } : { offset, limit };
}
