/** Open sessions per owner: each holds a PTY and a shell; a runaway loop must fail loudly. */
export const MAX_SESSIONS_PER_OWNER = 16;
/** Closed ids remembered (per service) so a repeated close answers false instead of "not found". */
export const MAX_CLOSED_REMEMBERED = 1024;
/** Longest scrollback page, in characters: what a model can take in one read. */
export const MAX_SCROLLBACK_PAGE = 30_000;
/** Longest send deadline: a send that needs longer should poll with shorter sends. */
export const MAX_SEND_TIMEOUT_MS = 600_000;
/** Default terminal size: wide enough that most tools do not wrap. */
export const DEFAULT_COLS = 120;
export const DEFAULT_ROWS = 40;
/** Largest terminal size: the emulator keeps a cell per column and row (scrollback included), so a typo must not cost gigabytes. */
export const MAX_COLS = 1_000;
export const MAX_ROWS = 1_000;
/** A person's typing holds the terminal this long after the last key: a model's send meanwhile is TERMINAL_BUSY, so the two never interleave. */
export const TYPING_HOLD_MS = 1_000;
/** Keystrokes in one `type` call, at most (a paste is one call). */
export const MAX_TYPE_CHARS = 16_384;
