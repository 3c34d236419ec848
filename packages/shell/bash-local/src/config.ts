/**
 * Configuration of `LocalBashExecutor`: defaults, limits, and validation.
 */
import { tmpdir, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { DshError } from '@dsh/core';
import { MAX_COLLECT_BYTES, MAX_GRACE_MS, MAX_SPILL_BYTES } from '@dsh/subprocess';

/** Default deadline of a foreground command: long enough for builds, short enough to notice a hang. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Largest deadline a request may ask for: a model should background anything longer. */
export const DEFAULT_MAX_TIMEOUT_MS = 600_000;
/** Default tail kept in memory per stream: ample for a model (which sees 30 000 chars) and for parsers. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Default cap of one spill file: a complete copy of most outputs without letting one fill the disk. */
export const DEFAULT_MAX_SPILL_BYTES = 256 * 1024 * 1024;
/** Default SIGTERM→SIGKILL grace, also the longest post-exit drain when a background child holds a pipe. */
export const DEFAULT_GRACE_MS = 1_000;

/** Options of `LocalBashExecutor`; every one has a default. */
export interface LocalBashConfig {
  /** Deadline when a request gives none. @default 120000 */
  timeoutMs?: number;
  /** Requests asking for more are clamped to this. @default 600000 */
  maxTimeoutMs?: number;
  /** Bytes of each stream's tail kept in memory. @default 1048576 */
  maxOutputBytes?: number;
  /** Absolute directory for complete copies of long outputs. @default `<tmpdir>/dsh-<user>/spill` */
  spillDir?: string;
  /** A spill file past this size is deleted (the result then says there is no complete copy). @default 268435456 */
  maxSpillBytes?: number;
  /** SIGTERM → graceMs → SIGKILL, and the post-exit drain bound. @default 1000 */
  graceMs?: number;
  /** Absolute working directory when a request gives none. @default process.cwd() */
  cwd?: string;
  /** The bash program: a bare name looked up on PATH, or an absolute path. @default 'bash' */
  bash?: string;
  /**
   * The stand-in editor of one-shot commands (EDITOR, VISUAL, GIT_EDITOR), already present in the
   * world the commands run in. @default one written at `<spillDir>/../bin/dsh-no-editor` on this machine
   */
  editor?: string;
}

/** A config with every field decided (`editor` stays optional). */
export type ResolvedBashConfig = Required<Omit<LocalBashConfig, 'editor'>> & Pick<LocalBashConfig, 'editor'>;

function invalid(field: string, problem: string): never {
  throw new DshError('INVALID_ARGUMENT', `bash executor config "${field}" ${problem}.`, { data: { field } });
}

function positiveInt(value: unknown, field: string, max: number, min = 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    invalid(field, `must be an integer ≥ ${min}`);
  }
  if (value > max) invalid(field, `must be at most ${max}`);
  return value;
}

function absolute(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isAbsolute(value) || /[\0\r\n]/.test(value)) {
    invalid(field, 'must be an absolute path without NUL or newline');
  }
  return value;
}

/** Fills and checks a config. @throws DshError `INVALID_ARGUMENT` naming the field. */
export function resolveBashConfig(config: LocalBashConfig = {}): ResolvedBashConfig {
  const known = new Set([
    'timeoutMs',
    'maxTimeoutMs',
    'maxOutputBytes',
    'spillDir',
    'maxSpillBytes',
    'graceMs',
    'cwd',
    'bash',
    'editor',
  ]);
  for (const key of Object.keys(config)) if (!known.has(key)) invalid(key, 'is not a known option');
  const maxTimeoutMs = positiveInt(config.maxTimeoutMs ?? DEFAULT_MAX_TIMEOUT_MS, 'maxTimeoutMs', 24 * 3600_000);
  const timeoutMs = positiveInt(
    config.timeoutMs ?? Math.min(DEFAULT_TIMEOUT_MS, maxTimeoutMs),
    'timeoutMs',
    maxTimeoutMs,
  );
  const bash = config.bash ?? 'bash';
  if (typeof bash !== 'string' || bash === '' || (bash.includes('/') && !isAbsolute(bash))) {
    invalid('bash', 'must be a bare program name or an absolute path');
  }
  return {
    timeoutMs,
    maxTimeoutMs,
    maxOutputBytes: positiveInt(config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, 'maxOutputBytes', MAX_COLLECT_BYTES),
    spillDir: absolute(config.spillDir ?? join(tmpdir(), `dsh-${userInfo().username}`, 'spill'), 'spillDir'),
    maxSpillBytes: positiveInt(config.maxSpillBytes ?? DEFAULT_MAX_SPILL_BYTES, 'maxSpillBytes', MAX_SPILL_BYTES, 0),
    graceMs: positiveInt(config.graceMs ?? DEFAULT_GRACE_MS, 'graceMs', MAX_GRACE_MS, 0),
    cwd: absolute(config.cwd ?? process.cwd(), 'cwd'),
    bash,
    ...(config.editor !== undefined ? { editor: absolute(config.editor, 'editor') } : {}),
  };
}
