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

/** Tool calls of one agent running at once: past it a call is refused (-32000, RESOURCE_EXHAUSTED), so one client cannot queue unbounded work. */
export const MAX_CALLS_AT_ONCE = 32;

/** Sessions of `dsh mcp --http` at once: each is an agent with its own world and processes; past it `initialize` is answered 503. */
export const MCP_HTTP_MAX_SESSIONS = 64;
/** An HTTP session with nothing in flight for this long ends, and its agent's jobs, terminals and world with it. */
export const MCP_HTTP_IDLE_MS = 30 * 60_000;
/** Events kept per HTTP session for a resumed stream (`Last-Event-ID`); older ones are dropped first. */
export const MCP_HTTP_EVENTS_MAX = 1_000;
/** Longest HTTP request body (the SDK's own default): a tool call's arguments are small; past it 413. */
export const MCP_HTTP_BODY_MAX_BYTES = 4 * 1024 * 1024;
/** Random bytes of a generated HTTP token (hex: twice as many characters). */
export const MCP_HTTP_TOKEN_BYTES = 24;
/** Open connections to `dsh mcp --http` at once: each holds a descriptor the agents' processes need too; past it new ones are dropped. */
export const MCP_HTTP_MAX_CONNECTIONS = 1_024;
/** How long a client may take to send a request's headers and body (not the response: event streams stay open). */
export const MCP_HTTP_REQUEST_TIMEOUT_MS = 30_000;
