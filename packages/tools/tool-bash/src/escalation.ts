/**
 * The sandbox of one bash call: the policy's decision for the agent, widened for this one call
 * when an escalation is asked for and approved (by the call's approver, else the composition's).
 */
import { type Approver, decide, type Owner, type ToolResult, toolError } from '@dsh/core';
import type { ResolvedSandbox, SandboxMode, SandboxPolicyService } from '@dsh/sandbox';

/** What the escalation step decided: the sandbox to run in and notes for the model, or a refusal. */
export type SandboxChoice = { sandbox: ResolvedSandbox | undefined; notes: string[] } | { refusal: ToolResult };

/** Resolves the call's sandbox, asking the approver when `escalate` is set. */
export async function chooseSandbox(request: {
  owner: Owner;
  command: string;
  escalate: boolean;
  justification: string | undefined;
  policy: SandboxPolicyService | undefined;
  /** The mode to hold to when no policy is mounted (a restricted mode then still needs a fence). */
  defaultMode: SandboxMode | undefined;
  workspace: string;
  approvers: readonly (Approver | undefined)[];
}): Promise<SandboxChoice> {
  const { policy, defaultMode } = request;
  const sandbox: ResolvedSandbox | undefined =
    policy?.resolve(request.owner) ??
    (defaultMode ? { mode: defaultMode, writableRoots: [request.workspace], network: false } : undefined);
  if (!request.escalate) return { sandbox, notes: [] };
  const from = sandbox?.mode ?? 'danger-full-access';
  if (from === 'danger-full-access') {
    return { sandbox, notes: ['commands already run without a sandbox here, so no escalation was needed'] };
  }
  const approver = request.approvers.find((a) => a !== undefined);
  const decision = await decide(approver, {
    agent: request.owner.name,
    tool: 'bash',
    command: request.command,
    justification: request.justification ?? '',
    from,
    to: 'danger-full-access',
  });
  if (decision.pending) {
    return {
      refusal: toolError('The user is being asked to approve this escalation; nothing ran yet.', 'ESCALATION_PENDING', {
        mode: from,
      }),
    };
  }
  if (!decision.approved) {
    const who =
      decision.reason ?? (approver ? 'the approver denied it' : 'no approver is configured in this composition');
    return {
      refusal: toolError(
        `Escalation out of the ${from} sandbox was not granted (${who}); the command did not run. Do it inside the sandbox, or ask the user.`,
        'ESCALATION_DENIED',
        { mode: from },
      ),
    };
  }
  return {
    sandbox: policy?.resolve(request.owner, 'danger-full-access'),
    notes: [`escalation approved: this command ran without the ${from} sandbox`],
  };
}
