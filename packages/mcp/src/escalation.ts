/**
 * Escalations asked of the user through MCP elicitation. One path serves both protocol eras:
 * the tool's approver sees no answer yet, so the call returns `input_required` with a form
 * asking for approval; the client asks the user (a 2025-era client is asked by the SDK's push
 * shim) and the call comes back with the answer. The retry is bound to the exact request by an
 * HMAC in `requestState`, so an answer approves that one command only. A client that did not
 * declare elicitation is never asked: the escalation is denied with what the person can do.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type ApprovalDecision, type Approver, type EscalationRequest, printable } from '@dsh/core';
import { type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';

/** The key of the approval form in `inputRequests` / `inputResponses`. */
export const APPROVAL_KEY = 'dsh_escalation';

/** Why an escalation is denied when the client cannot ask the user. */
export const NO_ELICITATION_REASON =
  'this MCP client cannot ask the user (it declared no elicitation support); the person running dsh mcp can choose the sandbox mode with --sandbox';

/** Why an escalation through a sub-agent's dsh tools is denied. */
export const NO_PERSON_REASON =
  'these tools were given to a sub-agent, and no person is behind its client to ask; work inside the sandbox';

/** Why a sub-agent's permission request is rejected when the client cannot ask the user. */
export const NO_ELICITATION_PERMISSION_REASON =
  'this MCP client cannot ask the user (it declared no elicitation support), and a sub-agent asks only through it';

/** The most characters of an agent's own words shown in one line of an approval form. */
export const APPROVAL_LINE_MAX_CHARS = 200;

/** `text` as one bounded line (an agent's title or option name cannot shape the form). */
function oneLine(text: string): string {
  const flat = printable(text).trim();
  return flat.length > APPROVAL_LINE_MAX_CHARS ? `${flat.slice(0, APPROVAL_LINE_MAX_CHARS)}…` : flat;
}

/** What one tool call needs to ask for approval. */
export interface ApprovalContext {
  /** The client declared elicitation (form mode) for this request. */
  canAsk: boolean;
  /** The client is a program (a sub-agent), not a person's: nobody can be asked. @default false */
  noPerson?: boolean;
  /** `ctx.mcpReq.inputResponses` of the request. */
  responses: Record<string, unknown> | undefined;
  /** `ctx.mcpReq.requestState()` of the request. */
  state: string | undefined;
}

/** Mints and checks the requestState that binds an answer to one escalation request. */
export class ApprovalSeal {
  private readonly key = randomBytes(32);

  /** The seal of `request`. */
  mint(request: EscalationRequest): string {
    const body = JSON.stringify([
      request.tool,
      request.command,
      request.justification,
      request.from,
      request.to,
      request.kind ?? 'escalation',
      request.choices ?? null,
      request.id ?? null,
    ]);
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }

  /** True when `state` is the seal of `request`. */
  verify(request: EscalationRequest, state: string | undefined): boolean {
    if (typeof state !== 'string') return false;
    const want = Buffer.from(this.mint(request));
    const got = Buffer.from(state);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

/** One call's approver, and the input_required answer when it had to ask. */
export class ApprovalRound {
  /** Set when the approver asked: the call must return {@link result}. */
  asked: EscalationRequest | null = null;

  constructor(
    private readonly seal: ApprovalSeal,
    private readonly context: ApprovalContext,
  ) {}

  readonly approve: Approver = async (request) => {
    if (this.context.noPerson) return { approved: false, reason: NO_PERSON_REASON };
    if (!this.context.canAsk) {
      return {
        approved: false,
        reason: request.kind === 'permission' ? NO_ELICITATION_PERMISSION_REASON : NO_ELICITATION_REASON,
      };
    }
    const answer = this.answered(request);
    if (answer !== undefined) return answer;
    this.asked ??= request; // one question per call: the first one asked
    return { approved: false, pending: true };
  };

  /** This call brings an answer of the user (it retries a call that asked). */
  get answering(): boolean {
    return !this.context.noPerson && inputResponse(this.context.responses, APPROVAL_KEY).kind === 'elicit';
  }

  /** The user's answer to `request` that this call carries (bound by the seal), else undefined. */
  readonly answered = (request: EscalationRequest): ApprovalDecision | undefined => {
    if (this.context.noPerson) return undefined;
    const view = inputResponse(this.context.responses, APPROVAL_KEY);
    if (view.kind !== 'elicit' || !this.seal.verify(request, this.context.state)) return undefined;
    if (view.action === 'accept' && view.content?.approve === true) return true;
    const why = view.action === 'accept' ? 'did not approve it' : view.action === 'decline' ? 'declined' : 'cancelled';
    return { approved: false, reason: `the user ${why}` };
  };

  /** The input_required result that asks the user about {@link asked}. */
  result(): InputRequiredResult {
    const request = this.asked as EscalationRequest;
    const permission = request.kind === 'permission';
    const choices = request.choices ?? { approve: 'allow', decline: 'reject' };
    const message = permission
      ? `${request.justification}.\nIt wants to: ${oneLine(request.command)}\nApproving picks its allow option "${oneLine(choices.approve)}"; declining picks its reject option "${oneLine(choices.decline)}".`
      : `The agent asks to run a command outside the ${request.from} sandbox.\nCommand: ${request.command}\nWhy: ${request.justification}`;
    const title = permission ? `Approve: ${choices.approve}` : 'Run it unconfined, this once';
    return inputRequired({
      inputRequests: {
        [APPROVAL_KEY]: inputRequired.elicit({
          message,
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title } },
            required: ['approve'],
          },
        }),
      },
      requestState: this.seal.mint(request),
    });
  }
}
