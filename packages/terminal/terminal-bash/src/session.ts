/**
 * A persistent bash session: output is sanitized into a bounded scrollback, prompt markers are
 * matched against the session nonce, and each send settles on combined evidence:
 * - `stdin_read`: a new marker (this send's, by sequence) with the foreground back at the shell;
 *   or a program blocked reading the terminal after a short quiet; or the shell itself blocked
 *   on the terminal with no new prompt (a `read`, an unfinished line);
 * - `inferred_idle`: output quiet for long while the foreground cannot be observed;
 * - `timeout`: the absolute deadline (the session keeps running);
 * - `session_exited`: the shell is gone.
 */
import type { SubprocessTerminalHandle } from '@dsh/subprocess';
import type { ScrollbackPage, SendResult, TerminalSession, WaitReason } from '@dsh/terminal';
import { OPENING_MAX_CHARS, POLL_MAX_MS, POLL_MIN_MS, type ResolvedBashTerminalConfig } from './config.js';
import { type PromptMarker, parseMarker } from './rcfile.js';
import { Sanitizer } from './sanitizer.js';
import { Scrollback } from './scrollback.js';

interface Active {
  startSeq: number;
  startOffset: number;
  startedAt: number;
  /** Input went to the shell's prompt: its echo must appear before a prompt counts, and is cut from the output. */
  echo: string | null;
  /** The whole input as the shell echoes it (lines joined by newlines, ending in one). */
  fullEcho: string;
  /** Offset where the echo starts, once seen. */
  echoAt: number | null;
  /** The previous send ended without the shell's prompt (timeout, idle, a program's read): a prompt may be owed to it. */
  owed: boolean;
  /** When the foreground was first seen blocked on the terminal with no output after it (null: not now). */
  waitSeenAt: number | null;
  cancelled: boolean;
  timer: NodeJS.Timeout;
  resolve: (result: SendResult) => void;
}

/** Characters of the echoed first line that must be seen: short enough never to reach a wrap. */
const ECHO_PROBE_CHARS = 40;
/** How far past the send's start the echo is looked for; past it, prompts count without it. */
const ECHO_SEARCH_CHARS = 4096;

/** Terminal input for `text`: lines end with carriage returns, as typed; one Enter at the end. */
function asTyped(text: string): string {
  return `${text.replace(/\r?\n$/, '').replace(/\r?\n/g, '\r')}\r`;
}

/** A bash on a PTY, driven one send at a time. */
export class BashSession implements TerminalSession {
  opening = '';
  private readonly scroll: Scrollback;
  private readonly sanitizer: Sanitizer;
  private marker: (PromptMarker & { offset: number }) | null = null;
  /** `performance.now()` when the latest prompt marker was parsed (for latency measurement). */
  markerSeenAt = 0;
  private lastOutputAt = Date.now();
  private exitCode: number | null = null;
  private exited = false;
  private active: Active | null = null;
  private poll: NodeJS.Timeout | undefined;
  private pollDelay = POLL_MIN_MS;
  private closing: Promise<void> | undefined;
  private owed = false;
  private readonly markerWaiters = new Set<() => void>();

  constructor(
    private readonly handle: SubprocessTerminalHandle,
    private readonly nonce: string,
    private readonly config: ResolvedBashTerminalConfig,
  ) {
    this.scroll = new Scrollback(config.scrollbackChars);
    this.sanitizer = new Sanitizer((payload, offset) => this.onOsc(payload, offset));
    handle.output.on('data', (chunk: string) => {
      this.scroll.append(this.sanitizer.push(chunk));
      this.lastOutputAt = Date.now();
      if (this.active) this.active.waitSeenAt = null; // output after the block: look again
      this.pollDelay = POLL_MIN_MS;
      this.check(false);
    });
    void handle.done.then(
      (facts) => this.onExit(facts.exitCode),
      () => this.onExit(null),
    );
  }

  /** Resolves at the first prompt (true), or false when the shell exits or `ms` pass first. */
  firstPrompt(ms: number): Promise<boolean> {
    if (this.marker) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), ms);
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        this.markerWaiters.delete(onMarker);
        resolve(ok);
      };
      const onMarker = (): void => finish(this.marker !== null);
      this.markerWaiters.add(onMarker);
    }).then((ok) => {
      if (ok && this.marker) this.opening = this.scroll.slice(0, this.marker.offset).text.slice(-OPENING_MAX_CHARS);
      return ok as boolean;
    });
  }

  state(): 'running' | 'exited' {
    return this.exited ? 'exited' : 'running';
  }

  send(input: { text: string; timeoutMs: number }): Promise<SendResult> {
    if (this.exited || this.closing) return Promise.resolve(this.result('session_exited', '', false));
    const facts = this.handle.inspectForeground();
    const toShell = !this.owed && (facts.foregroundPgid === null || facts.foregroundPgid === facts.shellPgid);
    const firstLine = input.text.replace(/\r\n?/g, '\n').split('\n')[0] ?? '';
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle('timeout'), input.timeoutMs);
      this.active = {
        startSeq: this.marker?.seq ?? 0,
        startOffset: this.scroll.end,
        startedAt: Date.now(),
        echo: toShell && firstLine !== '' ? firstLine.slice(0, ECHO_PROBE_CHARS) : null,
        fullEcho: `${input.text.replace(/\r\n?/g, '\n').replace(/\n$/, '')}\n`,
        echoAt: null,
        owed: this.owed,
        waitSeenAt: null,
        cancelled: false,
        timer,
        resolve,
      };
      this.handle.write(asTyped(input.text));
      this.pollDelay = POLL_MIN_MS;
      this.schedulePoll();
    });
  }

  cancel(): boolean {
    if (!this.active) return false;
    this.active.cancelled = true;
    this.handle.signalForeground('SIGINT');
    this.pollDelay = POLL_MIN_MS;
    this.schedulePoll();
    return true;
  }

  scrollback(page: { offset?: number; limit: number }): ScrollbackPage {
    return this.scroll.page(page.offset, page.limit);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.handle.terminate();
      } finally {
        this.onExit(this.exitCode);
      }
    })();
    return this.closing;
  }

  private onOsc(payload: string, offset: number): void {
    const m = parseMarker(payload, this.nonce);
    if (!m || (this.marker && m.seq <= this.marker.seq)) return; // a forgery, or an old prompt
    this.marker = { ...m, offset };
    this.markerSeenAt = performance.now();
    for (const waiter of [...this.markerWaiters]) waiter();
  }

  private onExit(exitCode: number | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = exitCode;
    for (const waiter of [...this.markerWaiters]) waiter();
    this.settle('session_exited');
  }

  private schedulePoll(): void {
    if (this.poll) clearTimeout(this.poll);
    this.poll = setTimeout(() => {
      this.poll = undefined;
      this.check(true);
      if (this.active) {
        this.pollDelay = Math.min(this.pollDelay * 2, POLL_MAX_MS);
        this.schedulePoll();
      }
    }, this.pollDelay);
  }

  /** Finds the echo of the input (once), so only prompts after it count for this send. */
  private seeEcho(a: Active): void {
    if (a.echo === null || a.echoAt !== null) return;
    const window = this.scroll.slice(a.startOffset, a.startOffset + ECHO_SEARCH_CHARS).text;
    const at = window.indexOf(a.echo);
    if (at >= 0) a.echoAt = a.startOffset + at;
    else if (window.length >= ECHO_SEARCH_CHARS) a.echo = null; // never echoed (e.g. a tab completed it): stop requiring it
  }

  /** Decides whether the active send is done. `observe` also reads the foreground facts (polling). */
  private check(observe: boolean): void {
    const a = this.active;
    if (!a) return;
    this.seeEcho(a);
    const m = this.marker;
    const fresh = m !== null && m.seq > a.startSeq && (a.echo === null || (a.echoAt !== null && m.offset > a.echoAt));
    if (!fresh && !observe) return;
    const facts = this.handle.inspectForeground();
    const atShell = facts.foregroundPgid === null || facts.foregroundPgid === facts.shellPgid;
    const quiet = Date.now() - Math.max(this.lastOutputAt, a.startedAt);
    if (fresh && atShell) {
      // After a send that left the shell busy, typed-ahead input may still run: the prompt must stay quiet.
      if (!a.owed || (quiet >= this.config.stdinSettleMs && facts.stdinWait !== false)) this.settle('stdin_read');
      return;
    }
    if (!observe || fresh) return;
    if (facts.stdinWait === true) {
      // The block must hold, with no output, for a settle window measured from when it was seen:
      // what the program wrote just before blocking (its prompt) may still be on its way to us.
      const now = Date.now();
      a.waitSeenAt ??= now;
      const settleMs = atShell ? this.config.shellReadSettleMs : this.config.stdinSettleMs;
      if (quiet >= settleMs && now - a.waitSeenAt >= settleMs) this.settle('stdin_read');
      return;
    }
    a.waitSeenAt = null;
    if (facts.stdinWait === null && quiet >= this.config.idleSilenceMs) {
      this.settle('inferred_idle');
    }
  }

  private settle(reason: WaitReason): void {
    const a = this.active;
    if (!a) return;
    this.active = null;
    clearTimeout(a.timer);
    if (this.poll) clearTimeout(this.poll);
    this.poll = undefined;
    const m = this.marker;
    const byMarker =
      reason === 'stdin_read' && m !== null && m.seq > a.startSeq && (a.echo === null || a.echoAt !== null);
    this.owed = !byMarker && reason !== 'session_exited';
    const end = byMarker && m ? m.offset : this.scroll.end;
    const from = this.afterEcho(a, a.echoAt ?? a.startOffset, end);
    const { text, lost } = this.scroll.slice(from, Math.max(from, end));
    const output =
      lost > 0 ? `[${lost} earlier characters of this output are no longer in the scrollback]\n${text}` : text;
    const exitCode = byMarker && m ? m.exitCode : reason === 'session_exited' ? this.exitCode : null;
    a.resolve(this.result(reason, output, a.cancelled, exitCode));
  }

  /** Where the output starts after the echo: past the whole echoed input, or at least past its first line. */
  private afterEcho(a: Active, echoAt: number, end: number): number {
    const seen = this.scroll.slice(echoAt, Math.max(echoAt, end)).text;
    if (seen.startsWith(a.fullEcho)) return echoAt + a.fullEcho.length;
    if (a.echoAt === null) return echoAt; // input to a program that did not echo it whole: keep everything
    const newline = seen.indexOf('\n');
    return newline < 0 ? echoAt + seen.length : echoAt + newline + 1;
  }

  private result(reason: WaitReason, output: string, cancelled: boolean, exitCode: number | null = null): SendResult {
    return { reason, output, state: this.state(), commandExitCode: exitCode, cancelled };
  }
}
