/**
 * When a send is done: the evidence the session gathered (its own prompt marker, the foreground
 * group, a block reading the terminal, silence) weighed into a reason, or a wait.
 */
import type { SendResult, WaitReason } from '@dsh/terminal';
import type { ResolvedBashTerminalConfig } from './config.js';
import type { Mark } from './screen.js';

/** The send (or cancel) a session is waiting on. */
export interface ActiveSend {
  startSeq: number;
  /** Where this send began. */
  start: Mark;
  startedAt: number;
  /** Input went to the shell's prompt (as a paste): its prompt must follow the shell accepting it. */
  toShell: boolean;
  /** Where the shell accepted the line (paste mode off), once seen. */
  acceptedAt: Mark | null;
  /** The previous send ended without the shell's prompt: a prompt may be owed to it. */
  owed: boolean;
  /** When the foreground was first seen blocked on the terminal with no output after it. */
  waitSeenAt: number | null;
  /** Input is still being typed: a reader blocked between pieces is not "waiting for input". */
  writing: boolean;
  /** A cancel interrupted it (or it is the cancel's own wait). */
  cancelled: boolean;
  /** A cancel came while input was still being typed: the rest of it is dropped. */
  abandoned: boolean;
  /** What was printed while no send waited, before this one. */
  earlier: { earlier: string; earlierOmitted: number };
  timer: NodeJS.Timeout;
  result: Promise<SendResult>;
  resolve: (result: SendResult) => void;
}

/** What the session saw at one look. */
export interface Evidence {
  /** This send's own prompt marker has been parsed. */
  fresh: boolean;
  /** The foreground facts were read for this look (a poll), not only the marker. */
  observe: boolean;
  /** The terminal's foreground is the shell. */
  atShell: boolean;
  /** The foreground is blocked reading the terminal (null: cannot be seen). */
  stdinWait: boolean | null;
  /** Milliseconds without output (since the send began, at most). */
  quietMs: number;
  now: number;
}

type Timings = Pick<ResolvedBashTerminalConfig, 'stdinSettleMs' | 'shellReadSettleMs' | 'idleSilenceMs'>;

/** The reason the send is done, or null to wait; keeps `a.waitSeenAt` (when a block was first seen). */
export function decide(a: ActiveSend, e: Evidence, t: Timings): WaitReason | null {
  if (e.fresh && e.atShell) {
    // After a send that left the shell busy, typed-ahead input may still run: the prompt must stay quiet.
    return !a.owed || (e.quietMs >= t.stdinSettleMs && e.stdinWait !== false) ? 'stdin_read' : null;
  }
  if (!e.observe || a.writing) return null;
  if (e.stdinWait === true) {
    // The block must hold, with no output, for a settle window measured from when it was seen:
    // what the program wrote just before blocking (its prompt) may still be on its way to us.
    a.waitSeenAt ??= e.now;
    const settleMs = e.atShell ? t.shellReadSettleMs : t.stdinSettleMs;
    return e.quietMs >= settleMs && e.now - a.waitSeenAt >= settleMs ? 'stdin_read' : null;
  }
  a.waitSeenAt = null;
  return e.stdinWait === null && e.quietMs >= t.idleSilenceMs ? 'inferred_idle' : null;
}
