/**
 * The ctx.shell vocabulary (DESIGN §4): loose requests, fully required specs, orthogonal results.
 */

import type { ResolvedSandbox, SandboxFacts } from '@dsh/sandbox';

export type { ResolvedSandbox, SandboxFacts, SandboxMode } from '@dsh/sandbox';

/** What tools and plugins hand in; everything but `command` is optional. */
export interface ShellExecRequest {
  /** Bash source, run as `bash -c command`. */
  command: string;
  /** Milliseconds before the executor kills the tree; clamped to the configured maximum. */
  timeoutMs?: number;
  /** Absolute working directory. @default the executor's configured cwd */
  workdir?: string;
  /** Trusted callers only: bytes for stdin. Without it stdin is at EOF. */
  stdin?: string;
  /** Trusted callers only: environment entries (undefined removes a name). */
  env?: Record<string, string | undefined>;
  /** Trusted callers only: a larger (or smaller) stdout tail than the configured one. */
  stdoutMaxBytes?: number;
  /** Managed `DSH_*` facts, merged after `env`: plain entries cannot override them. */
  dshEnv?: Record<string, string>;
  /** Filled by the tool layer from ctx.sandboxPolicy. @default unconfined */
  sandbox?: ResolvedSandbox;
}

/** A request with every field decided. */
export interface ShellExecSpec {
  command: string;
  workdir: string;
  timeoutMs: number;
  stdoutMaxBytes: number;
  stderrMaxBytes: number;
  spillDir: string;
  maxSpillBytes: number;
  graceMs: number;
  stdin: string | null;
  env: Readonly<Record<string, string | undefined>>;
  dshEnv: Readonly<Record<string, string>>;
  sandbox: ResolvedSandbox | null;
}

/** One captured stream. */
export interface CapturedText {
  /** The kept tail (the whole stream when not truncated). */
  text: string;
  /** True when some of the stream is not in `text`. */
  truncated: boolean;
  /** Bytes the stream produced. */
  totalBytes: number;
  /** The complete stream on disk, when one was kept. */
  spillPath: string | null;
  /** Why no complete copy could be written (a full disk: ENOSPC), when that is why there is none. */
  spillError?: string | null;
  /** Bytes kept in memory (decoded into `text`, or left out by a rendering). @default the bytes of `text` */
  keptBytes?: number;
  /** The kept bytes as produced, when they are not valid UTF-8 (`text` then holds U+FFFD for what could not be decoded). */
  raw?: Buffer;
}

/** Why the program did not start (missing workdir, …), as reported by ctx.subprocess. */
export interface StartFailure {
  code: string;
  message: string;
}

/** A foreground result. Exit facts, timeout and abort are independent reports. */
export interface ShellExecResult {
  exitCode: number | null;
  signal: string | null;
  /** The executor's deadline killed the run. Never true together with `aborted`. */
  timedOut: boolean;
  /** The caller's signal killed the run. Never true together with `timedOut`. */
  aborted: boolean;
  stdout: CapturedText;
  stderr: CapturedText;
  durationMs: number;
  /** The deadline that applied, in milliseconds. */
  timeoutMs: number;
  sandbox: SandboxFacts | null;
  /** Set when the command never started (e.g. the workdir is missing). */
  startError: StartFailure | null;
  /** Processes the command left running that were ended when it returned (0 when none). */
  leftover: number;
}

/** One incremental read of a background process. */
export interface ProcessRead {
  /** New stdout, with new stderr in `[stderr]` sections. */
  text: string;
  /** Some output since the last read was dropped from memory; see `spillPaths`. */
  lossy: boolean;
  /** Bytes produced since the last read that are not in `text` (dropped from memory). */
  skipped: number;
  spillPaths: { stdout: string | null; stderr: string | null };
}

/** How a started process ended. */
export interface ShellProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  /** `kill()` ended it. */
  killed: boolean;
  /** Its deadline ended it (only with `start(spec, { deadline: true })`). Never true together with `aborted`. */
  timedOut: boolean;
  /** The start option's signal ended it. Never true together with `timedOut`. */
  aborted: boolean;
  /** The deadline that applied, in milliseconds; null without one. */
  timeoutMs: number | null;
  startError: StartFailure | null;
  stdout: CapturedText;
  stderr: CapturedText;
  durationMs: number;
  sandbox: SandboxFacts | null;
  /** Processes the command left running that were ended when it returned (0 when none). */
  leftover: number;
}

/** Options of `ShellExecutor.start`. */
export interface ShellStartOptions {
  /**
   * Apply the spec's `timeoutMs` as a deadline (fused with `signal`), as a foreground run does;
   * the outcome then reports `timedOut` / `aborted`. @default false: no executor timeout
   */
  deadline?: boolean;
  /** Ends the process when aborted (the outcome says `aborted`). @default none */
  signal?: AbortSignal;
}

/** A started process: no id and no owner (those belong to ctx.jobs). */
export interface ShellProcess {
  readonly pid: number | undefined;
  /** Only what is new since the last call. */
  readOutput(): ProcessRead;
  /**
   * A second, independent cursor over the output, from the oldest text still kept (stdout, then
   * a stderr section, as `readOutput` renders them): reading it never moves `readOutput`'s cursor.
   * Optional: an executor whose output cannot be read twice leaves it out.
   */
  watchOutput?(): () => ProcessRead;
  /** Ends the tree. True when this call found it running; false once settled. */
  kill(): Promise<boolean>;
  /** Settles exactly once, never rejects. */
  readonly done: Promise<ShellProcessOutcome>;
}
