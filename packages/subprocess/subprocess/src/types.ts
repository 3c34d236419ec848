/**
 * The ctx.subprocess vocabulary (DESIGN §3): spawn specs, handles, outcomes, readers.
 * No semantics and no defaults: every field of a spec is written by the caller.
 */
import type { Readable, Writable } from 'node:stream';

/** What the child's stdin is connected to. */
export type StdinDisposition =
  /** `/dev/null`: the child reads EOF at once. */
  | { kind: 'ignore' }
  /** A writable pipe on the handle (`handle.stdin`), for protocol back ends. */
  | { kind: 'pipe' }
  /** These bytes are written, then stdin is closed. */
  | { kind: 'bytes'; data: string | Uint8Array };

/** Where the child's spill file goes and how large it may grow. */
export interface SpillSpec {
  /** Absolute directory for the private (mode 0600) spill file; created (0700) when missing. */
  dir: string;
  /** Past this many bytes the spill file is deleted and `spillPath` becomes null. */
  maxBytes: number;
}

/** What a child's stdout or stderr is connected to. */
export type OutputDisposition =
  /** A raw readable pipe on the handle; the caller frames and drains it. */
  | { kind: 'pipe' }
  /** The parent's own descriptor. */
  | { kind: 'inherit' }
  /** Bounded in-memory tail of `maxBytes`, optional complete copy on disk; read via an {@link OutputReader}. */
  | { kind: 'collect'; maxBytes: number; spill?: SpillSpec };

/** A fully explicit spawn request. */
export interface SpawnSpec {
  /** `argv[0]` is the program (bare name, or absolute path); never shell-interpreted. */
  argv: readonly string[];
  /** Absolute working directory; must exist. */
  cwd: string;
  /** Entries merged over the scrubbed parent environment; `undefined` removes a name. */
  env: Readonly<Record<string, string | undefined>>;
  stdin: StdinDisposition;
  stdout: OutputDisposition;
  stderr: OutputDisposition;
  /** SIGTERM → graceMs → SIGKILL; also the longest drain wait for collectors after exit. */
  graceMs: number;
  /** Abort ⇒ `terminate()`. The runtime never says why. */
  signal?: AbortSignal;
}

/** Exit facts of the direct child, or why it never started. */
export interface SubprocessOutcome {
  /** Exit status; null when killed by a signal or never started. */
  exitCode: number | null;
  /** Signal name (e.g. `SIGKILL`) when killed by one, else null. */
  signal: string | null;
  /** Why the program did not start (`EXECUTABLE_NOT_FOUND`, `NOT_EXECUTABLE`, `CWD_NOT_FOUND`, …), else null. */
  error: { code: string; message: string } | null;
}

/** One non-consuming read of a collected stream. */
export interface OutputRead {
  /** Decoded text from the requested offset (or from the start of the kept tail when `lossy`). */
  text: string;
  /** Byte offset (whole stream) to pass to the next read. */
  nextOffset: number;
  /** The requested offset had slid out of the kept tail: `text` is the whole kept tail. */
  lossy: boolean;
  /** Path of the complete stream on disk, while it is complete; else null. */
  spillPath: string | null;
  /** Bytes of the stream decoded into `text`. */
  bytes: number;
  /** Those bytes are not valid UTF-8: `text` holds U+FFFD for what could not be decoded ({@link OutputReader.readBytes} has them as produced). */
  invalidUtf8: boolean;
}

/** Independent, non-consuming reader of a collected stream. */
export interface OutputReader {
  /**
   * Text from byte `offset` of the whole stream. Never splits a UTF-8 character.
   * @throws DshError `INVALID_ARGUMENT` when offset is not an integer in [0, totalBytes].
   */
  read(offset: number): OutputRead;
  /**
   * The kept bytes from byte `offset` (or from the start of the kept tail, when it slid past), as produced.
   * @throws DshError `INVALID_ARGUMENT` when offset is not an integer in [0, totalBytes].
   */
  readBytes(offset: number): Buffer;
  /** Bytes the stream has produced so far (whole stream, not only the kept tail). */
  readonly totalBytes: number;
  /** True once the stream has ended (or was cut off after the post-exit drain). */
  readonly settled: boolean;
  /**
   * True when the stream did not end by itself: the direct child exited, the post-exit drain
   * (graceMs) ran out while another process still held the pipe, and the pipe was closed.
   */
  readonly cutOff: boolean;
  /** Why the complete copy on disk could not be written (e.g. `ENOSPC: no space left on device`), else null. */
  readonly spillError?: string | null;
}

/** A live (or failed-to-start) managed process. */
export interface SubprocessHandle {
  /**
   * OS pid (of the world the tree runs in). Undefined until the program started — at once for a
   * local runtime, when the far side answers for one across a channel — and for good when it
   * never started.
   */
  readonly pid: number | undefined;
  /** Writable stdin, for `{ kind: 'pipe' }` only. */
  readonly stdin: Writable | null;
  /** Raw stdout, for `{ kind: 'pipe' }` only. */
  readonly stdout: Readable | null;
  /** Raw stderr, for `{ kind: 'pipe' }` only. */
  readonly stderr: Readable | null;
  /** Reader of collected stdout, for `{ kind: 'collect' }` only. */
  readonly stdoutReader: OutputReader | null;
  /** Reader of collected stderr, for `{ kind: 'collect' }` only. */
  readonly stderrReader: OutputReader | null;
  /** Exit facts once the direct child exited and collectors drained (bounded by graceMs). Never rejects. */
  readonly done: Promise<SubprocessOutcome>;
  /**
   * The same facts as soon as the direct child exits (or fails to start), before the post-exit
   * drain: for callers whose deadline covers the program's own lifetime. Never rejects.
   */
  readonly exit: Promise<SubprocessOutcome>;
  /** SIGTERM the tree, SIGKILL after graceMs; resolves at tree quiescence. Idempotent; no-op once the tree is gone. */
  terminate(): Promise<void>;
  /**
   * `terminate()`, resolving with how many processes of the tree were alive when it began (0 when
   * the tree was already gone): after the direct child exited, the ones it left running.
   */
  endTree(): Promise<number>;
  /**
   * Resolves when no member of the tree is alive (zombies count as gone).
   * @throws DshError `ABORTED` (rejection) when `signal` aborts first.
   */
  waitForExit(signal?: AbortSignal): Promise<void>;
}

/** Spec of the terminal primitive (implemented by the terminal issue). */
export interface TerminalSpawnSpec {
  argv: readonly string[];
  cwd: string;
  env: SpawnSpec['env'];
  cols: number;
  rows: number;
  graceMs: number;
  /** Cancels allocation only; a published handle owns its lifetime. */
  signal?: AbortSignal;
}

/** Signals `signalForeground` accepts: the ones a terminal user can send. */
export const FOREGROUND_SIGNALS: ReadonlySet<string> = new Set([
  'SIGINT',
  'SIGQUIT',
  'SIGTSTP',
  'SIGTERM',
  'SIGHUP',
  'SIGKILL',
  'SIGCONT',
  'SIGWINCH',
]);

/** Facts about a terminal's foreground, as far as the provider can observe them. */
export interface ForegroundFacts {
  shellPgid: number;
  foregroundPgid: number | null;
  /** Foreground process blocked reading the terminal; null = cannot observe here. */
  stdinWait: boolean | null;
  command: string | null;
  /**
   * When the facts were true (epoch ms). A provider across a channel answers from the last
   * observation, so the facts may be older than the call; a local provider observes at once.
   * @default the moment of the call
   */
  observedAt?: number;
}

/** A process on a pseudo-terminal. */
export interface SubprocessTerminalHandle {
  readonly pid: number;
  readonly output: Readable;
  write(text: string): void;
  resize(cols: number, rows: number): void;
  inspectForeground(): ForegroundFacts;
  signalForeground(signal: string): boolean;
  terminate(): Promise<void>;
  readonly done: Promise<{ exitCode: number | null; signal: string | null }>;
}
