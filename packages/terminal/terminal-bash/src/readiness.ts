/**
 * When a send is done: the evidence the session gathered (its own prompt marker, the foreground
 * group, a block reading the terminal, silence) weighed into a reason, or a wait.
 */
import type { SendResult, WaitReason } from '@dsh/terminal';
import type { ResolvedBashTerminalConfig } from './config.js';
import type { RowShot } from './rewrites.js';
import type { Mark } from './screen.js';

/** A send that types nothing returns once output came and then paused this long (it waits for output or readiness). */
export const WAIT_OUTPUT_QUIET_MS = 200;

/** After a lone Escape, programs wait to tell it from the start of a key's sequence (vim: ttimeoutlen, 100 ms by default): the screen is settled only after this much quiet. */
export const ESCAPE_SETTLE_MS = 300;

/** The send (or cancel) a session is waiting on. */
export interface ActiveSend {
  startSeq: number;
  /** Where this send began. */
  start: Mark;
  /** The screen above the cursor when it began (to see what a program rewrote). */
  shot: RowShot;
  /** Only Enter went to the shell's prompt: no command ran. */
  emptyLine: boolean;
  /** The input ended with a lone Escape. */
  escape: boolean;
  /** The shell showed its continuation prompt for this send's line. */
  continued: boolean;
  /** The input had no Enter (text or keys only). */
  unsubmitted: boolean;
  /** It settled because the shell itself reads the terminal (no new prompt). */
  shellReading: boolean;
  startedAt: number;
  /** Input went to the shell's prompt (as a paste): its prompt must follow the shell accepting it. */
  toShell: boolean;
  /** The program that held the terminal when the input was typed (its command line), when it was not the shell's prompt. */
  heldBy: string | null;
  /** The command line it types at the prompt, when it is one (not keys). */
  line: string | null;
  /** What the command line held before this send typed its line there (null: nothing). */
  linePrefix: string | null;
  /** It types nothing: it waits for output or readiness. */
  waitOnly: boolean;
  /** Where the shell accepted the line (paste mode off), once seen. */
  acceptedAt: Mark | null;
  /** Where the shell's line editor began reading it (paste mode on), when that came after the send began and before its input. */
  readyAt: Mark | null;
  /** The first piece of input was written (it may have waited for the line editor). */
  inputSent: boolean;
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
  /** What was printed while no send waited, before this one (and how an owed command ended). */
  earlier: { earlier: string; earlierOmitted: number; earlierOffset: number | null; previousExitCode: number | null };
  /**
   * Typed ahead while an earlier send's command still ran (`owed`): the exit code the prompt
   * after that command carried, told as the earlier command's (null until that prompt came).
   */
  aheadExit: number | null;
  timer: NodeJS.Timeout;
  /** When `timer` settles it (`Date.now()` time); a cancel may bring it closer. */
  deadlineAt: number;
  result: Promise<SendResult>;
  resolve: (result: SendResult) => void;
}

/** How the shell's command line stands when a send settled without its prompt. */
export function commandLine(a: ActiveSend, atPrompt: boolean): 'incomplete' | 'unsubmitted' | null {
  if (atPrompt || !a.shellReading) return null;
  if (a.continued) return 'incomplete';
  return a.unsubmitted ? 'unsubmitted' : null;
}

/**
 * Whose exit code the prompt `m` that ended send `a` carries. Input typed while a program held the
 * terminal went to that program, and the first prompt after it is the one the shell shows when
 * that program ends: it reports how the program ended, and no command of the send ran. Only a
 * later prompt (the shell read a line after the program ended: typed ahead, or left over) is a
 * command's. (The shell's turning paste mode off cannot tell: programs turn it off on exit too.)
 */
export function exitCodes(
  a: ActiveSend,
  m: { exitCode: number | null; seq: number },
): { commandExitCode: number | null; programExitCode: number | null } {
  if (a.emptyLine) return { commandExitCode: null, programExitCode: null };
  if (a.toShell || a.cancelled || a.heldBy === null) return { commandExitCode: m.exitCode, programExitCode: null };
  const shellRead = m.seq > a.startSeq + 1;
  return shellRead
    ? { commandExitCode: m.exitCode, programExitCode: null }
    : { commandExitCode: null, programExitCode: m.exitCode };
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
  /** Output came since the send began. */
  printed: boolean;
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
  // A wait (nothing typed) hands back what was printed once the output pauses.
  if (a.waitOnly && e.printed && e.quietMs >= WAIT_OUTPUT_QUIET_MS && e.stdinWait !== true) return 'inferred_idle';
  if (e.stdinWait === true) {
    // The block must hold, with no output, for a settle window measured from when it was seen:
    // what the program wrote just before blocking (its prompt) may still be on its way to us.
    a.waitSeenAt ??= e.now;
    const settleMs = Math.max(e.atShell ? t.shellReadSettleMs : t.stdinSettleMs, a.escape ? ESCAPE_SETTLE_MS : 0);
    if (e.quietMs < settleMs || e.now - a.waitSeenAt < settleMs) return null;
    a.shellReading = e.atShell;
    return 'stdin_read';
  }
  a.waitSeenAt = null;
  return e.stdinWait === null && e.quietMs >= t.idleSilenceMs ? 'inferred_idle' : null;
}

/** A send that has just begun: its input (`payload`) not yet written, nothing seen of it yet. */
export function newActiveSend(
  at: Pick<
    ActiveSend,
    | 'startSeq'
    | 'start'
    | 'shot'
    | 'emptyLine'
    | 'toShell'
    | 'heldBy'
    | 'line'
    | 'linePrefix'
    | 'waitOnly'
    | 'owed'
    | 'deadlineAt'
  >,
  input: { payload: string; cancelled: boolean; earlier: ActiveSend['earlier'] },
  timer: NodeJS.Timeout,
): ActiveSend {
  let resolve!: (r: SendResult) => void;
  const result = new Promise<SendResult>((r) => {
    resolve = r;
  });
  return {
    ...at,
    escape: input.payload.endsWith('\x1b'),
    continued: false,
    unsubmitted: !input.cancelled && !input.payload.includes('\r'),
    shellReading: false,
    startedAt: Date.now(),
    acceptedAt: null,
    readyAt: null,
    inputSent: false,
    waitSeenAt: null,
    writing: true,
    cancelled: input.cancelled,
    abandoned: false,
    earlier: input.earlier,
    aheadExit: null,
    timer,
    result,
    resolve,
  };
}
