/**
 * @dsh/core: the error type and the ctx / plugin / composition kernel every dsh package stands on.
 */
export { Composition } from './composition.js';
export { isPidAlive, sweepDeadDirs } from './dead-dirs.js';
export { settleWithin } from './deadline.js';
export type { DshErrorCode, DshErrorOptions } from './errors.js';
export { DSH_ERROR_CODES, DshError, isDshError } from './errors.js';
export { hostHeaderAllowed, isLoopback, mintToken, tokenMatches } from './http-guard.js';
export type { Owner } from './owner.js';
export { createOwner, isOwner } from './owner.js';
export type { PersistentServiceOptions } from './persistent-service.js';
export { persistentServicePlugin } from './persistent-service.js';
export type { Ctx, DisposeReason, Plugin, PluginApi, ServiceKey, ServiceMap } from './plugin.js';
export { printable } from './printable.js';
export type { PrivateDirOptions } from './private-dir.js';
export { ensurePrivateDir, isInside, makeFreshPrivateDir, UNSAFE_DIRECTORY } from './private-dir.js';
export { readRegularText } from './read-regular.js';
export type { ToolSpec } from './tool-kit.js';
export {
  defineTool,
  jsonSchema,
  outputSchema,
  parseArgs,
  resolveWorkdir,
  saveText,
  sharesFiles,
  toolError,
  workspaceToolPlugin,
} from './tool-kit.js';
export { ToolRegistry } from './tool-registry.js';
export type {
  ApprovalDecision,
  Approver,
  Decision,
  EscalationRequest,
  ProgressReport,
  ToolAnnotations,
  ToolCallOptions,
  ToolContext,
  ToolDefinition,
  ToolInfo,
  ToolResult,
} from './tools.js';
export { argName, decide, decisionOf } from './tools.js';
