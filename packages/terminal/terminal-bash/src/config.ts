/**
 * Configuration of the persistent bash backend: readiness timings, buffer bounds, defaults.
 */
import { isAbsolute } from 'node:path';
import { DshError } from '@dsh/core';
import type { SandboxMode } from '@dsh/sandbox';

/** Output quiet this long while a program blocks on the terminal ⇒ it waits for input (`stdin_read`). */
export const DEFAULT_STDIN_SETTLE_MS = 25;
/** The shell itself blocked on the terminal with no new prompt this long ⇒ `read`, or an unfinished line. */
export const DEFAULT_SHELL_READ_SETTLE_MS = 150;
/** No output this long while the foreground cannot be observed ⇒ `inferred_idle`. */
export const DEFAULT_IDLE_SILENCE_MS = 1_500;
/** Scrollback kept per session, in characters: hours of ordinary output, bounded memory. */
export const DEFAULT_SCROLLBACK_CHARS = 256 * 1024;
/** How long the first prompt may take before opening fails. */
export const DEFAULT_OPEN_TIMEOUT_MS = 10_000;
/** SIGTERM → grace → SIGKILL for every process of a closing session. */
export const DEFAULT_TERMINAL_GRACE_MS = 1_000;
/** Output shown on open at most, in characters. */
export const OPENING_MAX_CHARS = 4_000;
/**
 * Output fed to the emulator and not yet parsed, at most (characters): past it the PTY is held
 * until the emulator is below EMULATOR_BACKLOG_LOW_CHARS, so a flood waits in the program (blocked
 * on its writes) instead of in memory, and a Ctrl-C is seen after little more than this is parsed.
 */
export const EMULATOR_BACKLOG_MAX_CHARS = 256 * 1024;
/** Where a held PTY is read again. */
export const EMULATOR_BACKLOG_LOW_CHARS = 64 * 1024;
/** Readiness polling starts this fast after input or output, and slows down to POLL_MAX_MS. */
export const POLL_MIN_MS = 5;
export const POLL_MAX_MS = 50;

/** Options of the bash backend; every one has a default. */
export interface BashTerminalConfig {
  /** Absolute working directory when `open` gives none. @default process.cwd() */
  cwd?: string;
  /** The bash program (bare name or absolute path). @default 'bash' */
  bash?: string;
  /** @default 25 */
  stdinSettleMs?: number;
  /** @default 150 */
  shellReadSettleMs?: number;
  /** @default 1500 */
  idleSilenceMs?: number;
  /** @default 262144 */
  scrollbackChars?: number;
  /** @default 10000 */
  openTimeoutMs?: number;
  /** @default 1000 */
  graceMs?: number;
  /** Extra environment for the shell (over the scrubbed parent). @default {} */
  env?: Record<string, string | undefined>;
  /**
   * The mode to hold to when ctx.sandboxPolicy is not mounted: a restricted mode then still
   * needs a fence, or opening fails. @default unconfined (a composition without a sandbox)
   */
  sandboxMode?: SandboxMode;
}

export type ResolvedBashTerminalConfig = Required<Omit<BashTerminalConfig, 'sandboxMode'>>;

function int(value: unknown, field: string, fallback: number, max: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > max) {
    throw new DshError('INVALID_ARGUMENT', `terminal-bash config "${field}" must be an integer in [1, ${max}].`, {
      data: { field },
    });
  }
  return v;
}

/** Fills and checks a config. @throws DshError `INVALID_ARGUMENT` naming the field. */
export function resolveTerminalConfig(config: BashTerminalConfig = {}): ResolvedBashTerminalConfig {
  const cwd = config.cwd ?? process.cwd();
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) {
    throw new DshError('INVALID_ARGUMENT', 'terminal-bash config "cwd" must be an absolute path.', {
      data: { field: 'cwd' },
    });
  }
  const bash = config.bash ?? 'bash';
  if (typeof bash !== 'string' || bash === '' || (bash.includes('/') && !isAbsolute(bash))) {
    throw new DshError('INVALID_ARGUMENT', 'terminal-bash config "bash" must be a bare name or an absolute path.', {
      data: { field: 'bash' },
    });
  }
  return {
    cwd,
    bash,
    stdinSettleMs: int(config.stdinSettleMs, 'stdinSettleMs', DEFAULT_STDIN_SETTLE_MS, 60_000),
    shellReadSettleMs: int(config.shellReadSettleMs, 'shellReadSettleMs', DEFAULT_SHELL_READ_SETTLE_MS, 60_000),
    idleSilenceMs: int(config.idleSilenceMs, 'idleSilenceMs', DEFAULT_IDLE_SILENCE_MS, 600_000),
    scrollbackChars: int(config.scrollbackChars, 'scrollbackChars', DEFAULT_SCROLLBACK_CHARS, 64 * 1024 * 1024),
    openTimeoutMs: int(config.openTimeoutMs, 'openTimeoutMs', DEFAULT_OPEN_TIMEOUT_MS, 600_000),
    graceMs: int(config.graceMs, 'graceMs', DEFAULT_TERMINAL_GRACE_MS, 600_000),
    env: { ...(config.env ?? {}) },
  };
}
