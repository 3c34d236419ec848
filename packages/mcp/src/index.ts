/**
 * @dsh/mcp: a composition's tools over MCP stdio and Streamable HTTP (DESIGN §13), on the official TypeScript SDK.
 */

export type { EndedJob, McpHost } from './agent-server.js';
export { LIMIT_ERROR } from './agent-server.js';
export { APPROVAL_KEY, ApprovalRound, ApprovalSeal, NO_ELICITATION_REASON } from './escalation.js';
export { BoundedEventStore } from './http-events.js';
export type { McpHttpServer, ServeMcpHttpOptions } from './http-server.js';
export { MCP_HTTP_PATH, MCP_HTTP_TOKEN_PATTERN, serveMcpHttp } from './http-server.js';
export {
  DEFAULT_YIELD_MS,
  MAX_CALLS_AT_ONCE,
  MAX_MESSAGE_BYTES,
  MCP_HTTP_BODY_MAX_BYTES,
  MCP_HTTP_EVENTS_MAX,
  MCP_HTTP_IDLE_MS,
  MCP_HTTP_MAX_CONNECTIONS,
  MCP_HTTP_MAX_SESSIONS,
  MCP_HTTP_REQUEST_TIMEOUT_MS,
  MCP_HTTP_TOKEN_BYTES,
  PROGRESS_LINE_MAX_CHARS,
  PROGRESS_MIN_INTERVAL_MS,
} from './limits.js';
export type { McpServerHandle, ServeMcpOptions } from './server.js';
export { serveMcp } from './server.js';
export { LineTransport } from './transport.js';
