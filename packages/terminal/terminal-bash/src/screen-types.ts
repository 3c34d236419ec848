/**
 * The shapes a screen shares with its session: positions (marks), hooks, snapshots.
 */

/**
 * A position in the view: a row and column while the row is on screen (its offset is worked out
 * when asked, from the same rendering as every other position), a fixed offset once the row is
 * final (in the transcript).
 */
export interface Mark {
  readonly row: number;
  readonly col: number;
  fixed: number | null;
  /** When it was taken, in parse order (a screen position does not tell: programs move the cursor up). */
  readonly order: number;
}

/** What the screen tells its session. */
export interface ScreenHooks {
  /** Bytes the terminal answers with (to be written to the PTY). */
  reply(data: string): void;
  /** An OSC 133 payload (a prompt marker, maybe), where the cursor is. */
  marker(payload: string, at: Mark): void;
  /** The shell accepted a line (bracketed paste switched off), where the cursor is. */
  accept(at: Mark): void;
  /** The shell's line editor began reading a line (bracketed paste switched on), where the cursor is. */
  ready(at: Mark): void;
  /** Everything fed so far is parsed. */
  parsed(): void;
}

/** A snapshot of the screen. */
export interface ScreenSnapshot {
  text: string;
  /** `text` with highlighted runs (reverse video, a rare background) marked `»…«` (screen-marks.ts). */
  marked: string;
  /** Where the cursor is: row and column from 1 at the top left. */
  cursor: { row: number; col: number };
  rows: number;
  cols: number;
  /** A full-screen program (the alternate screen) is showing. */
  alternate: boolean;
}
