/**
 * Escalations asked of the user through MCP elicitation. One path serves both protocol eras:
 * the tool's approver sees no answer yet, so the call returns `input_required` with a form
 * asking for approval; the client asks the user (a 2025-era client is asked by the SDK's push
 * shim) and the call comes back with the answer. The retry is bound to the exact request by an
 * HMAC in `requestState`, so an answer approves that one command only. A client that did not
 * declare elicitation is never asked: the escalation is denied with what the person can do.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Approver, EscalationRequest } from '@dsh/core';
import { type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';

/** The key of the approval form in `inputRequests` / `inputResponses`. */
export const APPROVAL_KEY = 'dsh_escalation';

/** Why an escalation is denied when the client cannot ask the user. */
export const NO_ELICITATION_REASON =
  'this MCP client cannot ask the user (it declared no elicitation support); the person running dsh mcp can choose the sandbox mode with --sandbox';

/** What one tool call needs to ask for approval. */
export interface ApprovalContext {
  /** The client declared elicitation (form mode) for this request. */
  canAsk: boolean;
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
    const body = JSON.stringify([request.tool, request.command, request.justification, request.from, request.to]);
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
    if (!this.context.canAsk) return { approved: false, reason: NO_ELICITATION_REASON };
    const view = inputResponse(this.context.responses, APPROVAL_KEY);
    if (view.kind === 'elicit' && this.seal.verify(request, this.context.state)) {
      if (view.action === 'accept' && view.content?.approve === true) return true;
      const why =
        view.action === 'accept' ? 'did not approve it' : view.action === 'decline' ? 'declined' : 'cancelled';
      return { approved: false, reason: `the user ${why}` };
    }
    this.asked = request;
    return { approved: false, pending: true };
  };

  /** The input_required result that asks the user about {@link asked}. */
  result(): InputRequiredResult {
    const request = this.asked as EscalationRequest;
    return inputRequired({
      inputRequests: {
        [APPROVAL_KEY]: inputRequired.elicit({
          message: `The agent asks to run a command outside the ${request.from} sandbox.\nCommand: ${request.command}\nWhy: ${request.justification}`,
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Run it unconfined, this once' } },
            required: ['approve'],
          },
        }),
      },
      requestState: this.seal.mint(request),
    });
  }
}
