import type { Owner } from '@dsh/core';

/**
 * The ctx.terminals vocabulary (DESIGN §7): ids, send results, scrollback pages, and the
 * backend seam a session type (e.g. terminal-bash's `shell`) implements.
 */

/** Opaque terminal id minted by the service. */
export type TerminalId = string & { readonly __brand: 'TerminalId' };

/** Why a send gave control back. Independent of the session's own state. */
export type WaitReason = 'stdin_read' | 'inferred_idle' | 'timeout' | 'session_exited';

/** What one send types. */
export interface SendInput {
  /** Text to type. */
  text: string;
  /** Longest wait for the session to be ready again, in ms. */
  timeoutMs: number;
  /** Press Enter after `text`. @default true */
  submit: boolean;
  /** Named keys pressed after the text (see `KEY_NAMES`), encoded for the terminal's mode. @default [] */
  keys: string[];
  /**
   * Several lines of text for a program that turned bracketed paste on (a REPL, an editor) go as
   * one paste, so its auto-indent leaves them as they are; false types them key by key. The
   * shell's own prompt always takes a command as a paste. @default true
   */
  paste: boolean;
}

/** The outcome of one send (or of a cancel). */
export interface SendResult {
  reason: WaitReason;
  /**
   * What a person would have seen since this send began: the text (CR overwrites applied,
   * redraws collapsed, without the echo of a shell command), or — while a full-screen program
   * shows — the screen (`screen: true`). When more than is kept was written, the start is
   * dropped and `omitted` counts it.
   */
  output: string;
  /** `output` is a snapshot of the screen (a full-screen program runs), highlighted runs marked `»…«` (see ScreenView.marked). */
  screen: boolean;
  /** With `screen`: where the cursor is (row and column from 1), else null. */
  cursor: { row: number; col: number } | null;
  /** Characters of this send's output before `output` (exact): the start of a long output. */
  omitted: number;
  /** Of `omitted`, the characters no longer kept anywhere (past the scrollback); the rest are read with a scrollback page. */
  omittedGone: number;
  /** Where `output` begins in the scrollback (a page at `outputOffset - (omitted - omittedGone)` reads what is left out), null for a screen. */
  outputOffset: number | null;
  /** Output printed while no send was waiting (job notices, a background job's prints), since the last send. */
  earlier: string;
  /** Characters printed while no send waited that the transcript no longer holds (exact). */
  earlierOmitted: number;
  /** Where `earlier` begins in the scrollback (a page there reads it whole), null when nothing was printed. */
  earlierOffset: number | null;
  /** The session itself: still running, or its top process exited. */
  state: 'running' | 'exited';
  /** Exit code of this send's command, from the prompt marker that followed its own input (null: none ran, or not known). */
  commandExitCode: number | null;
  /** The send ended at its own prompt marker: the shell is at its prompt. */
  atPrompt: boolean;
  /**
   * The shell's command line is not done: `incomplete` when the shell asks for the rest (an open
   * quote or bracket, a trailing backslash), `unsubmitted` when text was typed without Enter.
   */
  commandLine: 'incomplete' | 'unsubmitted' | null;
  /** The command of an earlier send that had not finished when that send returned finished since: its exit code. */
  previousExitCode: number | null;
  /** With `session_exited`: the signal that killed the shell, if one did. */
  exitSignal: string | null;
  /** True when a cancel interrupted it. */
  cancelled: boolean;
  /**
   * The program that held the terminal when this send's input was typed (its command line), or
   * null when the input went to the shell's prompt (or nothing was typed). Its input went to it,
   * not to the shell: `commandExitCode` is then only set when the shell read a line after it.
   */
  inputTo: string | null;
  /** With `inputTo`: the exit code of that program, when it ended during this send (the prompt that followed is its). */
  programExitCode: number | null;
  /**
   * With `programExitCode`: the command line that ran the program when the program was not its
   * last command (`python3; echo rc=$?`, `git commit` running an editor); the code is then that
   * line's status (its last command's), not necessarily the program's. Null otherwise.
   */
  programLine: string | null;
  /**
   * Text the shell's command line already held when this send typed its command there (typed
   * earlier without Enter, or a key meant for a program that had ended): the shell ran it
   * together with this send's text, as one line. Null when the line was empty.
   */
  linePrefix: string | null;
  /** A known prompt the screen shows (vim's hit-enter, a pager's end) and the keys that continue past it. */
  knownPrompt: { prompt: string; keys: string[] } | null;
}

/** One page of a session's scrollback. Offsets count characters of the rendered text (what the screen showed, row by row) since the session began. */
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
  /** What runs in the foreground (a program's command line), null at the shell's prompt or when unknown. */
  foreground: string | null;
  /** The shell's exit code once the session exited. */
  exitCode: number | null;
  /** The signal that killed the shell, if one did. */
  exitSignal: string | null;
}

/** What the screen shows. */
export interface ScreenView {
  text: string;
  /**
   * `text` with the runs a program set apart marked `»…«`: reverse video (a search match, a
   * status line) and a background colour few cells share (a menu's selected row). Optional: a
   * backend that cannot see cell styles leaves it out.
   */
  marked?: string;
  /** Where the cursor is (row and column from 1 at the top left), when the backend knows. */
  cursor?: { row: number; col: number };
  rows: number;
  cols: number;
  /** A full-screen program (the alternate screen) is showing. */
  alternate: boolean;
}

/**
 * What a watcher is told, in order: first one `snapshot` — terminal sequences that redraw the
 * screen as it stood when watching began (text, colours, the cursor, the alternate screen, the
 * modes) — then every later write as `output`. Nothing is lost or repeated between them.
 */
export type TerminalWatchEvent =
  | { kind: 'snapshot'; data: string; cols: number; rows: number }
  | { kind: 'output'; data: string };

/** A live view of a session's output for a watcher (a person's page). */
export interface TerminalWatch {
  /** Columns of the session's screen. */
  cols: number;
  /** Rows of the session's screen. */
  rows: number;
  /** Stops the stream. Idempotent. */
  close(): void;
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
  /** Output shown when the session opened (as rendered by the emulator, bounded). */
  readonly opening: string;
  state(): 'running' | 'exited';
  /** Sends input and waits for readiness; called with at most one send in flight. Never rejects for the command's behaviour. */
  send(input: SendInput): Promise<SendResult>;
  /**
   * Interrupts the foreground program (Ctrl-C through the line discipline: typed-ahead input is
   * discarded) and waits for readiness like a send; a send in flight settles as cancelled with
   * that result. Null when nothing runs (the shell is idle at its prompt).
   */
  cancel(timeoutMs: number): Promise<SendResult | null>;
  scrollback(page: { offset?: number; limit: number }): ScrollbackPage;
  /** The screen now. */
  screen(): ScreenView;
  /**
   * Streams what the session writes, from a snapshot of the screen on (see {@link TerminalWatchEvent});
   * the snapshot is told before the promise resolves. Watching changes nothing for the session's
   * sends. Optional: a backend that cannot stream leaves it out.
   */
  watch?(listener: (event: TerminalWatchEvent) => void): Promise<TerminalWatch>;
  /**
   * Writes keystrokes as they are (a person at the keyboard), in order, paced like a send's input
   * but waiting for no readiness; resolves once they are all written (or dropped by a cancel,
   * which drops keys not yet written). The service calls it only while no send is in flight. Optional.
   */
  type?(data: string): Promise<void>;
  /**
   * Resizes the terminal: the PTY (programs get SIGWINCH) and the emulator together, so the
   * screen is the real one; watchers get a fresh snapshot at the new size. Optional.
   */
  resize?(cols: number, rows: number): void;
  /** What runs in the foreground, null at the prompt or when unknown. */
  foreground(): string | null;
  /** The shell's exit code once the session exited, else null. */
  exitCode(): number | null;
  /** The signal that killed the shell, once it was killed by one. */
  exitSignal(): string | null;
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
