/**
 * @dsh/mcp: a composition's tools over MCP stdio (DESIGN §13), on the official TypeScript SDK.
 */
export { APPROVAL_KEY, ApprovalRound, ApprovalSeal, NO_ELICITATION_REASON } from './escalation.js';
export { DEFAULT_YIELD_MS, MAX_MESSAGE_BYTES, PROGRESS_LINE_MAX_CHARS, PROGRESS_MIN_INTERVAL_MS } from './limits.js';
export type { McpHost, McpServerHandle, ServeMcpOptions } from './server.js';
export { serveMcp } from './server.js';
export { LineTransport } from './transport.js';
