/**
 * The sandbox vocabulary (DESIGN §5): modes, a resolved policy for one run, the facts a run
 * reports, and the two services — ctx.sandboxPolicy (decides) and ctx.sandbox (confines).
 */
import type { SubprocessRuntime } from '@dsh/subprocess';

/** How much a command may touch. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** Modes from narrowest to widest. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];

/** A sandbox decision for one run. */
export interface ResolvedSandbox {
  mode: SandboxMode;
  /** Absolute directories the command may write (workspace-write). */
  writableRoots: readonly string[];
  /** Whether the command may use the network (all of it). */
  network: boolean;
  /**
   * With `network` false: the hosts the world may reach through its proxy (issue 24: the world
   * keeps a network namespace with only loopback; names are decided and resolved on the host).
   * @default null: no network at all
   */
  hosts?: import('./net/rules.js').NetworkRules | null;
  /** Directories readable even where the fence masks their parent (the workspace, in read-only mode). @default [] */
  readableRoots?: readonly string[];
  /** Absolute paths a command must never read (credential stores, session logs). @default [] */
  denyRead?: readonly string[];
  /** Absolute paths inside the writable roots left writable though protect.ts would guard them. @default [] */
  unprotected?: readonly string[];
  /** Per-world resource limits; a field left out is not limited. @default no limits */
  limits?: WorldLimits;
  /** Size of the world's `/tmp` in bytes. @default WORLD_TMP_BYTES */
  tmpBytes?: number;
  /**
   * A private home seeded from the real one (private-home.ts) where programs keep their state;
   * the real `$HOME` is never written. Restricted modes of a world on this machine only. @default true
   */
  privateHome?: boolean;
  /**
   * Whose world the run belongs to (an opaque key per agent, minted by ctx.sandboxPolicy): runs of
   * one scope and policy share one world; other scopes never see it. @default one shared world
   */
  scope?: string;
}

/** Resource limits of one world (every process in it together). */
export interface WorldLimits {
  /** Processes and threads at once. */
  pids?: number;
  /** Memory in bytes (RAM; its `/tmp` counts too). */
  memoryBytes?: number;
}

/** What a run reports about its sandbox. */
export interface SandboxFacts {
  mode: SandboxMode;
  /** The policy refused something the command tried (strong evidence only). */
  denied: boolean;
  denial: 'file' | 'network' | 'syscall' | null;
  /** What was refused, when the evidence names it (a path, a system call, a host). */
  denialDetail?: string | null;
  /** A world limit the run hit (its fork failed at the pids limit, or it was killed out of memory). */
  limit?: 'pids' | 'memory' | null;
  /** `full`: the fence enforced every part of the policy; `partial`: some part could not be. */
  enforcement: 'full' | 'partial';
  /** The runner itself failed before the command ran (not the command's failure). */
  runnerFailed: boolean;
}

/** Where confined runs of one scope and policy are spawned: a long-lived fenced runtime. */
export interface World {
  /** ctx.subprocess inside the fence (a channel to its runtime server). */
  readonly runtime: SubprocessRuntime;
  /** `full`: the fence enforces every part of the policy; `partial`: some part could not be (e.g. a missing root). */
  readonly enforcement: 'full' | 'partial';
  /** Counters of the world's limits (host side), read before and after a run to tell a limit hit. @default none */
  limitCounters?(): { pids: number; oom: number } | null;
  /** Connections its proxy refused so far (a world whose policy names hosts), read before a run. @default none */
  networkRefusals?(): number;
  /** Its share directory on this machine (seen inside at `/run/dsh/share`), or null. @default none */
  readonly shareDir?: string | null;
}

/** What a finished confined run looked like, for the classifier. */
export interface RunEvidence {
  exitCode: number | null;
  stderr: string;
  stdout: string;
  /** The run's start failure code, when it never started (e.g. `WORLD_DISCONNECTED`). */
  startError?: string | null;
  /** The signal that ended it, if one did. */
  signal?: string | null;
  /** The world's limit counters when the run started ({@link World.limitCounters}). */
  limitsBefore?: { pids: number; oom: number } | null;
  /** The same counters once it ended (filled in by the sandbox). */
  limitsAfter?: { pids: number; oom: number } | null;
  /** The world's proxy refusals when the run started ({@link World.networkRefusals}). */
  refusalsBefore?: number | null;
  /** What the proxy refused while it ran (filled in by the sandbox): host, port and why. */
  refused?: readonly { host: string; port: number; reason: string | null }[];
}

/** ctx.sandbox: the execution worlds of restricted modes. */
export interface Sandbox {
  /** True when confinement works here (the runner exists and starts). */
  available(): boolean;
  /** Why it is unavailable, with what to do (install, opt out); null when available. */
  unavailableReason(): string | null;
  /**
   * The world of `policy` (its scope and policy): started through `host` on first use, then
   * reused; a lost world is replaced on the next call. Never unconfined.
   * @throws DshError `SANDBOX_UNAVAILABLE` when there is no fence here.
   */
  world(policy: ResolvedSandbox, host: SubprocessRuntime): World;
  /**
   * Facts of a finished run: denial classified conservatively (from its stderr); a runner failure
   * only when the world itself failed (its channel was lost), never from the command's text.
   */
  classify(evidence: RunEvidence, policy: ResolvedSandbox, world: World): SandboxFacts;
  /** Ends every world of one scope (an agent that is gone) and joins them; a later run of the scope gets a new world. */
  disposeScope?(scope: string): Promise<void>;
  /** Ends every world and joins it. Idempotent. */
  dispose(): Promise<void>;
}
