/**
 * Model-facing tools: the shape a plugin registers and the registry a composition exposes.
 * A tool call never throws for bad input: it returns `{ text, isError, data }`.
 */
import type { Owner } from './owner.js';
import type { Ctx } from './plugin.js';

/** What a tool call returns: model-visible text plus machine facts. */
export interface ToolResult {
  /** What the model sees. */
  text: string;
  /** True when the call failed (bad arguments, unknown id, refused); `text` says what to do next. */
  isError: boolean;
  /** Machine facts (`job_id`, `exit_code`, `timed_out`, …). */
  data: Record<string, unknown>;
}

/** Everything a tool's `call` receives besides its arguments. */
export interface ToolContext {
  readonly ctx: Ctx;
  readonly owner: Owner;
  /** Aborts the call (e.g. the harness cancelled the turn). */
  readonly signal?: AbortSignal;
}

/** A tool as registered by a plugin. */
export interface ToolDefinition {
  /** snake_case name the model calls. */
  readonly name: string;
  /** One paragraph for the model: what it does, when to use it. */
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly inputSchema: Record<string, unknown>;
  /** Runs the tool. Must resolve, not reject, for bad input; rejections are treated as infrastructure failures. */
  call(args: unknown, context: ToolContext): Promise<ToolResult>;
}

/** A tool as listed to a model. */
export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}
