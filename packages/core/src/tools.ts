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
  /** Machine facts (`job_id`, `exit_code`, `timed_out`, …); valid against the tool's `outputSchema`. */
  data: Record<string, unknown>;
}

/** Hints about a tool's effects, as MCP clients read them. */
export interface ToolAnnotations {
  /** Only reads state (never changes anything). @default false */
  readOnlyHint?: boolean;
  /** May destroy or end something (a process, a session). @default false */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments has no further effect. @default false */
  idempotentHint?: boolean;
  /** Reaches beyond the machine (network, other hosts). @default false */
  openWorldHint?: boolean;
}

/**
 * What an approver decides: a sandbox escalation (`sandbox_permissions: 'require_escalated'`),
 * or a sub-agent's permission request (`kind: 'permission'`).
 */
export interface EscalationRequest {
  /** The agent's name (display only). */
  agent: string;
  /** The tool asking. */
  tool: string;
  /** The command that would run outside the sandbox (a permission: what the sub-agent wants to do). */
  command: string;
  justification: string;
  /** The mode in force, and the one asked for. */
  from: string;
  to: string;
  /** What is asked. @default 'escalation' */
  kind?: 'escalation' | 'permission';
  /** A permission: the text of the option approving selects, and of the one declining selects. @default none */
  choices?: { approve: string; decline: string };
  /** Binds an answer to this one request (two alike requests get different answers). @default none */
  id?: string;
}

/**
 * What an approver answers: `true`/`false`, or a decision with the reason a model should read.
 * `pending: true` means the person is being asked and the call will come back with the answer:
 * nothing runs now.
 */
export type ApprovalDecision = boolean | { approved: boolean; reason?: string; pending?: boolean };

/** Decides one escalation. */
export type Approver = (request: EscalationRequest) => Promise<ApprovalDecision>;

/** One progress report of a long call. */
export interface ProgressReport {
  /** Milliseconds since the call began. */
  elapsedMs: number;
  /** The last non-empty output line so far ('' when there is none). */
  lastLine: string;
}

/** Options of one tool call, given by the harness (never by the model). */
export interface ToolCallOptions {
  /** Aborts the call (e.g. the harness cancelled the turn). @default none */
  signal?: AbortSignal;
  /**
   * A foreground command still running after this many milliseconds is handed over to a
   * background job, and the call returns its output so far and the job id. @default never
   */
  yieldMs?: number;
  /** Receives progress of long calls, at most once a second. @default none */
  progress?: (report: ProgressReport) => void;
  /** Decides escalations of this call, before the composition's approver. @default the composition's approver */
  approve?: Approver;
  /**
   * The person's answer to `request` that this call brings back (it retries a call that asked),
   * or undefined when it brings none; it never asks. A sub-agent's permission request asked in an
   * earlier call is answered through it. @default none
   */
  answered?: (request: EscalationRequest) => ApprovalDecision | undefined;
  /** This call brings an answer of the person (a retry after it asked). @default false */
  answering?: boolean;
  /**
   * How the caller spells tool arguments in notes (a CLI names its flags: `{ timeout_ms: '--timeout' }`);
   * an argument mapped to `null` is not offered at all. @default the argument names
   */
  argNames?: Readonly<Record<string, string | null>>;
}

/** Everything a tool's `call` receives besides its arguments. */
export interface ToolContext extends ToolCallOptions {
  readonly ctx: Ctx;
  readonly owner: Owner;
}

/** A tool as registered by a plugin. */
export interface ToolDefinition {
  /** snake_case name the model calls. */
  readonly name: string;
  /** One paragraph for the model: what it does, when to use it. */
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly inputSchema: Record<string, unknown>;
  /** JSON Schema of `data` in the results. @default any object */
  readonly outputSchema?: Record<string, unknown>;
  /** Effect hints. @default none */
  readonly annotations?: ToolAnnotations;
  /** Runs the tool. Must resolve, not reject, for bad input; rejections are treated as infrastructure failures. */
  call(args: unknown, context: ToolContext): Promise<ToolResult>;
}

/** A tool as listed to a model. */
export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/** How a note names argument `name` for this call's caller (null: the caller cannot set it). */
export function argName(context: Pick<ToolCallOptions, 'argNames'>, name: string): string | null {
  const mapped = context.argNames?.[name];
  return mapped === undefined ? name : mapped;
}

/** An approver's answer, normalized. */
export interface Decision {
  approved: boolean;
  /** Why, when the approver said (e.g. "the client cannot ask the user"). */
  reason: string | null;
  /** The person is being asked; nothing runs now. */
  pending: boolean;
}

/** Asks `approver` (a throw or a missing approver is a denial) and normalizes its answer. */
export async function decide(approver: Approver | undefined, request: EscalationRequest): Promise<Decision> {
  if (!approver) return { approved: false, reason: null, pending: false };
  let answer: ApprovalDecision;
  try {
    answer = await approver(request);
  } catch {
    return { approved: false, reason: 'the approver failed', pending: false };
  }
  return decisionOf(answer);
}

/** An approver's answer, normalized (pending is never approved). */
export function decisionOf(answer: ApprovalDecision): Decision {
  if (typeof answer === 'boolean') return { approved: answer, reason: null, pending: false };
  return {
    approved: answer?.approved === true && answer.pending !== true,
    reason: typeof answer?.reason === 'string' ? answer.reason : null,
    pending: answer?.pending === true,
  };
}
