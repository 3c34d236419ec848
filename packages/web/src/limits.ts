/**
 * The limits of `dsh web`, each with its reason.
 */

/** Where the page is served unless `--host` says otherwise: nobody else on the network can reach it. */
export const WEB_DEFAULT_HOST = '127.0.0.1';
/** Port 0: the system picks a free one, and the URL printed says which. */
export const WEB_DEFAULT_PORT = 0;
/** Random bytes in the access token (hex in the URL): not guessable. */
export const WEB_TOKEN_BYTES = 24;
/** How often the lists (terminals, jobs) and the jobs' new output are looked at: live enough for a person, cheap (in-process reads). */
export const WEB_TICK_MS = 250;
/** Terminal output sent to one page (all its terminals together) and not yet drawn by it: past this a terminal's stream pauses, and its screen is redrawn from a snapshot once the page caught up (memory stays bounded on both sides; even as JSON escapes it stays well under the socket's limit). */
export const WEB_UNACKED_MAX_CHARS = 512 * 1024;
/** Largest message a page may send: keystrokes and commands are small. */
export const WEB_MESSAGE_MAX_BYTES = 64 * 1024;
/** Pages connected at once: each one watches every terminal. */
export const WEB_MAX_CLIENTS = 16;
/** Session-log records a page gets when it connects (the newest); later ones stream as they are written. */
export const WEB_LOG_BACKLOG = 200;
/** Characters of one log record's text (a result, an output, typed keys, the arguments) a page is sent: the tail, with the count cut (the log file has all of it). */
export const WEB_LOG_RECORD_MAX_CHARS = 4_000;
/** A job's output sent in one message at most (the newest part; the page keeps about this much per job). */
export const WEB_JOB_CHUNK_MAX_CHARS = 64 * 1024;
/** A Ctrl-C from the page waits at most this long for the terminal to be ready again (its cancel's wait). */
export const WEB_KEY_WAIT_MS = 2_000;
/** A command typed into the page's command box, at most. */
export const WEB_COMMAND_MAX_CHARS = 16 * 1024;
/** Socket buffer of one page past which it is disconnected (it reconnects and starts afresh): a stuck page cannot grow the server. */
export const WEB_SOCKET_BUFFER_MAX_BYTES = 8 * 1024 * 1024;
/** How long closing the server lets a page's socket take its close frame before it is cut. */
export const WEB_CLOSE_GRACE_MS = 200;
/** The size of a terminal opened from the page: it fits a laptop's browser window beside the other panels. */
export const WEB_TERMINAL_COLS = 100;
export const WEB_TERMINAL_ROWS = 30;
