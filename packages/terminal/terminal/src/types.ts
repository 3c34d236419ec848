import type { Owner } from '@dsh/core';

/**
 * The ctx.terminals vocabulary (DESIGN §7): ids, send results, scrollback pages, and the
 * backend seam a session type (e.g. terminal-bash's `shell`) implements.
 */

/** Opaque terminal id minted by the service. */
export type TerminalId = string & { readonly __brand: 'TerminalId' };

/** Why a send gave control back. Independent of the session's own state. */
export type WaitReason = 'stdin_read' | 'inferred_idle' | 'timeout' | 'session_exited';

/** The outcome of one send. */
export interface SendResult {
  reason: WaitReason;
  /** New output since this send began (sanitized, without the echo of the input). */
  output: string;
  /** The session itself: still running, or its top process exited. */
  state: 'running' | 'exited';
  /** Exit code of the command, when the shell reported one (from its prompt marker). */
  commandExitCode: number | null;
  /** True when `cancel` interrupted this send. */
  cancelled: boolean;
}

/** One page of a session's scrollback. Offsets count characters of sanitized output since the session began. */
export interface ScrollbackPage {
  text: string;
  /** Where `text` starts (greater than the requested offset when that had been dropped). */
  offset: number;
  /** Pass as `offset` to read on. */
  nextOffset: number;
  /** Oldest offset still kept. */
  startOffset: number;
}

/** A session as listed. */
export interface TerminalInfo {
  id: TerminalId;
  name: string | null;
  type: string;
  state: 'running' | 'exited';
  /** Epoch milliseconds. */
  createdAt: number;
  /** True while a send is in flight. */
  busy: boolean;
}

/** What a backend needs to open a session. */
export interface OpenRequest {
  /** Who the session is for (backends resolve per-owner policy, e.g. the sandbox, with it). */
  owner: Owner;
  /** Absolute working directory, or undefined for the backend's default. */
  cwd: string | undefined;
  cols: number;
  rows: number;
}

/** A live session, as a backend implements it. The service adds ids, owners and exclusivity. */
export interface TerminalSession {
  /** Output shown when the session opened (sanitized, bounded). */
  readonly opening: string;
  state(): 'running' | 'exited';
  /** Sends input and waits for readiness; called with at most one send in flight. Never rejects for the command's behaviour. */
  send(input: { text: string; timeoutMs: number }): Promise<SendResult>;
  /** Marks the in-flight input cancelled and interrupts the foreground (SIGINT). False when no send is in flight. */
  cancel(): boolean;
  scrollback(page: { offset?: number; limit: number }): ScrollbackPage;
  /** Ends every process of the session and releases it; resolves when that is done. Idempotent. */
  close(): Promise<void>;
}

/** A session type. `open` resolves only with a fully set-up session. */
export interface TerminalBackend {
  readonly type: string;
  /**
   * Opens a session. On failure, whatever was started is cleaned up before the rejection; a
   * backend that cannot clean up rejects with DshError `TERMINAL_CLEANUP_FAILED`.
   */
  open(request: OpenRequest): Promise<TerminalSession>;
}
