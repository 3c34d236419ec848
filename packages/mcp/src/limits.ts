/**
 * Named limits of the MCP server, each with its reason.
 */

/**
 * A foreground `bash` still running after this long becomes a background job: MCP clients end
 * a request after about 60 s, and the answer (output so far, job id) must reach the model first.
 */
export const DEFAULT_YIELD_MS = 45_000;
/** Longest JSON-RPC message read: larger ones are answered with an error and skipped (memory stays bounded). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Progress notifications of one call come at most this often (a client redraws on each). */
export const PROGRESS_MIN_INTERVAL_MS = 1_000;
/** Longest last-line excerpt in a progress message. */
export const PROGRESS_LINE_MAX_CHARS = 200;

/** How long a request on the last line of the input (no newline before its end) may take to be answered before the transport closes. */
export const EOF_ANSWER_WAIT_MS = 5_000;
