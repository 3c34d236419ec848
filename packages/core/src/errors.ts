/**
 * The one error type of dsh. Every failure a caller can act on is a `DshError`
 * with a stable string `code`; tests and callers branch on `code`, never on `message`.
 */

/** Codes used across dsh. Providers may add their own; these are the shared, stable ones. */
export const DSH_ERROR_CODES = [
  'INVALID_SPEC',
  'INVALID_ARGUMENT',
  'RELATIVE_EXECUTABLE',
  'EXECUTABLE_NOT_FOUND',
  'NOT_EXECUTABLE',
  'CWD_NOT_FOUND',
  'CWD_NOT_ACCESSIBLE',
  'SPAWN_FAILED',
  'RESOURCE_EXHAUSTED',
  'ARGUMENTS_TOO_LONG',
  'ABORTED',
  'DISPOSED',
  'NOT_IMPLEMENTED',
  'SERVICE_NOT_FOUND',
  'SERVICE_CONFLICT',
  'PLUGIN_NOT_FOUND',
  'PLUGIN_CONFLICT',
  'PLUGIN_SETUP_FAILED',
  'TEARDOWN_FAILED',
  'TOOL_CONFLICT',
  'SANDBOX_UNAVAILABLE',
  'WORLD_UNAVAILABLE',
  'WORLD_DISCONNECTED',
  'JOB_NOT_FOUND',
  'JOB_QUEUE_FULL',
  'TERMINAL_NOT_FOUND',
  'TERMINAL_BUSY',
  'UNSAFE_DIRECTORY',
] as const;

/** A code from {@link DSH_ERROR_CODES}, or a provider-specific string. */
export type DshErrorCode = (typeof DSH_ERROR_CODES)[number] | (string & {});

/** Options for {@link DshError}. */
export interface DshErrorOptions {
  /** The underlying error, if any. @default undefined */
  cause?: unknown;
  /** Machine-readable facts about the failure (field names, paths, limits). @default {} */
  data?: Readonly<Record<string, unknown>>;
}

/** The error every dsh package throws or reports. */
export class DshError extends Error {
  /** Stable identifier of the failure; safe to branch on. */
  readonly code: DshErrorCode;
  /** Machine-readable facts about the failure. */
  readonly data: Readonly<Record<string, unknown>>;

  constructor(code: DshErrorCode, message: string, options: DshErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DshError';
    this.code = code;
    this.data = options.data ?? {};
  }

  /** Plain JSON form (code, message, data), for logs and tool results. */
  toJSON(): { code: string; message: string; data: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** True when `value` is a {@link DshError}, optionally with the given code. */
export function isDshError(value: unknown, code?: DshErrorCode): value is DshError {
  return value instanceof DshError && (code === undefined || value.code === code);
}
