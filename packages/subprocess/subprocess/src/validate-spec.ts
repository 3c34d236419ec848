/**
 * Synchronous validation of spawn specs. Every malformed field throws `DshError`
 * `INVALID_SPEC` naming the field (`data.field`); nothing is defaulted silently.
 */
import { isAbsolute } from 'node:path';
import { DshError } from '@dsh/core';
import { MAX_COLLECT_BYTES, MAX_GRACE_MS, MAX_SPILL_BYTES } from './limits.js';
import type { SpawnSpec, TerminalSpawnSpec } from './types.js';

const SPAWN_FIELDS = new Set(['argv', 'cwd', 'env', 'stdin', 'stdout', 'stderr', 'graceMs', 'signal']);
const TERMINAL_FIELDS = new Set(['argv', 'cwd', 'env', 'cols', 'rows', 'graceMs', 'signal']);
/** Largest terminal dimension accepted: larger is a unit mix-up, not a screen. */
const MAX_TERMINAL_CELLS = 10_000;

function invalid(field: string, problem: string): never {
  throw new DshError('INVALID_SPEC', `spawn spec field "${field}" ${problem}.`, { data: { field } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(spec: Record<string, unknown>, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.has(key)) invalid(where ? `${where}.${key}` : key, 'is not a known field (check its spelling)');
  }
}

function checkString(value: unknown, field: string): string {
  if (typeof value !== 'string') invalid(field, 'must be a string');
  if (value.includes('\0')) invalid(field, 'must not contain a NUL byte');
  return value;
}

function checkInteger(value: unknown, field: string, max: number): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    invalid(field, 'must be a non-negative integer');
  }
  if (value > max) invalid(field, `must be at most ${max}`);
}

/**
 * Checks `argv[0]` has no relative path: `./x` or `bin/x` depends on the caller's cwd.
 * @throws DshError `RELATIVE_EXECUTABLE`.
 */
export function assertProgramShape(program: string): void {
  if (program.includes('/') && !isAbsolute(program)) {
    throw new DshError(
      'RELATIVE_EXECUTABLE',
      `program "${program}" is a relative path; pass an absolute path or a bare name found on PATH.`,
      { data: { field: 'argv[0]', program } },
    );
  }
}

function checkCommon(spec: Record<string, unknown>): void {
  const argv = spec.argv;
  if (!Array.isArray(argv)) invalid('argv', 'must be an array of strings');
  if (argv.length === 0) invalid('argv', 'must not be empty (argv[0] is the program)');
  for (const [i, arg] of argv.entries()) checkString(arg, `argv[${i}]`);
  if ((argv[0] as string) === '') invalid('argv[0]', 'must name a program');
  assertProgramShape(argv[0] as string);
  const cwd = checkString(spec.cwd, 'cwd');
  if (!isAbsolute(cwd)) invalid('cwd', 'must be an absolute path');
  if (!isRecord(spec.env)) invalid('env', 'must be an object of string or undefined values');
  for (const [name, value] of Object.entries(spec.env)) {
    if (name === '' || name.includes('=') || name.includes('\0'))
      invalid(`env.${name}`, 'is not a valid variable name');
    if (value !== undefined) checkString(value, `env.${name}`);
  }
  checkInteger(spec.graceMs, 'graceMs', MAX_GRACE_MS);
  if (spec.signal !== undefined && !(spec.signal instanceof AbortSignal)) invalid('signal', 'must be an AbortSignal');
}

function checkStdin(value: unknown): void {
  if (!isRecord(value)) invalid('stdin', "must be { kind: 'ignore' | 'pipe' | 'bytes' }");
  if (value.kind === 'ignore' || value.kind === 'pipe') {
    checkKeys(value, new Set(['kind']), 'stdin');
    return;
  }
  if (value.kind !== 'bytes') invalid('stdin.kind', "must be 'ignore', 'pipe' or 'bytes'");
  checkKeys(value, new Set(['kind', 'data']), 'stdin');
  if (typeof value.data !== 'string' && !(value.data instanceof Uint8Array)) {
    invalid('stdin.data', 'must be a string or a Uint8Array');
  }
}

function checkOutput(value: unknown, field: 'stdout' | 'stderr'): void {
  if (!isRecord(value)) invalid(field, "must be { kind: 'pipe' | 'inherit' | 'collect' }");
  if (value.kind === 'pipe' || value.kind === 'inherit') {
    checkKeys(value, new Set(['kind']), field);
    return;
  }
  if (value.kind !== 'collect') invalid(`${field}.kind`, "must be 'pipe', 'inherit' or 'collect'");
  checkKeys(value, new Set(['kind', 'maxBytes', 'spill']), field);
  checkInteger(value.maxBytes, `${field}.maxBytes`, MAX_COLLECT_BYTES);
  if (value.spill === undefined) return;
  if (!isRecord(value.spill)) invalid(`${field}.spill`, 'must be { dir, maxBytes }');
  checkKeys(value.spill, new Set(['dir', 'maxBytes']), `${field}.spill`);
  const dir = checkString(value.spill.dir, `${field}.spill.dir`);
  if (!isAbsolute(dir)) invalid(`${field}.spill.dir`, 'must be an absolute path');
  checkInteger(value.spill.maxBytes, `${field}.spill.maxBytes`, MAX_SPILL_BYTES);
}

/**
 * Validates a {@link SpawnSpec}.
 * @throws DshError `INVALID_SPEC` (with `data.field`) or `RELATIVE_EXECUTABLE`.
 */
export function validateSpawnSpec(spec: unknown): asserts spec is SpawnSpec {
  if (!isRecord(spec)) invalid('spec', 'must be an object');
  checkKeys(spec, SPAWN_FIELDS, '');
  checkCommon(spec);
  checkStdin(spec.stdin);
  checkOutput(spec.stdout, 'stdout');
  checkOutput(spec.stderr, 'stderr');
}

/**
 * Validates a {@link TerminalSpawnSpec}.
 * @throws DshError `INVALID_SPEC` (with `data.field`) or `RELATIVE_EXECUTABLE`.
 */
export function validateTerminalSpawnSpec(spec: unknown): asserts spec is TerminalSpawnSpec {
  if (!isRecord(spec)) invalid('spec', 'must be an object');
  checkKeys(spec, TERMINAL_FIELDS, '');
  checkCommon(spec);
  checkInteger(spec.cols, 'cols', MAX_TERMINAL_CELLS);
  checkInteger(spec.rows, 'rows', MAX_TERMINAL_CELLS);
  if (spec.cols === 0) invalid('cols', 'must be at least 1');
  if (spec.rows === 0) invalid('rows', 'must be at least 1');
}
