/**
 * The sandbox vocabulary (DESIGN §5): modes, a resolved policy for one run, the facts a run
 * reports, and the two services — ctx.sandboxPolicy (decides) and ctx.sandbox (confines).
 */

/** How much a command may touch. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** Modes from narrowest to widest. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];

/** A sandbox decision for one run. */
export interface ResolvedSandbox {
  mode: SandboxMode;
  /** Absolute directories the command may write (workspace-write). */
  writableRoots: readonly string[];
  /** Whether the command may use the network. */
  network: boolean;
}

/** What a run reports about its sandbox. */
export interface SandboxFacts {
  mode: SandboxMode;
  /** The policy refused something the command tried (strong evidence only). */
  denied: boolean;
  denial: 'file' | 'network' | null;
  /** `full`: the fence enforced every part of the policy; `partial`: some part could not be. */
  enforcement: 'full' | 'partial';
  /** The runner itself failed before the command ran (not the command's failure). */
  runnerFailed: boolean;
}

/** A confined command line. */
export interface Confinement {
  argv: string[];
  /** Facts that follow from the set-up alone (e.g. enforcement). */
  enforcement: 'full' | 'partial';
}

/** What a finished confined run looked like, for the classifier. */
export interface RunEvidence {
  exitCode: number | null;
  stderr: string;
  stdout: string;
}

/** ctx.sandbox: confines a command line to a policy. */
export interface Sandbox {
  /** True when confinement works here (the runner exists and starts). */
  available(): boolean;
  /** Why it is unavailable, with what to do (install, opt out); null when available. */
  unavailableReason(): string | null;
  /**
   * Wraps `argv` so it runs under `policy`. `terminal: true` keeps the caller's session and
   * terminal (no new session), for shells on a PTY.
   * @throws DshError `SANDBOX_UNAVAILABLE`.
   */
  confine(argv: readonly string[], policy: ResolvedSandbox, options?: { terminal?: boolean }): Confinement;
  /** Facts of a finished run: denial classified conservatively, runner failures told apart. */
  classify(evidence: RunEvidence, policy: ResolvedSandbox, confinement: Confinement): SandboxFacts;
}
