/**
 * A persistent bash session: output is sanitized into a bounded scrollback, prompt markers are
 * matched against the session nonce, and each send settles on combined evidence:
 * - `stdin_read`: the prompt marker of this send (by sequence, after the shell accepted the
 *   input) with the foreground back at the shell; or a program blocked reading the terminal;
 *   or the shell itself blocked on the terminal with no new prompt (a `read`, an unfinished line);
 * - `inferred_idle`: output quiet for long while the foreground cannot be observed;
 * - `timeout`: the absolute deadline (the session keeps running);
 * - `session_exited`: the shell is gone.
 *
 * Input for the shell's own prompt is sent as one bracketed paste (several lines wrapped in one
 * brace group), so they run as one command with one prompt after them, and an interrupt
 * abandons the lines that had not run yet. The
 * shell switches paste mode off (CSI ?2004l) the moment it accepts the line: that marks where
 * the echo ends and the command's output begins.
 */
import type { SubprocessTerminalHandle } from '@dsh/subprocess';
import type { ScrollbackPage, SendResult, TerminalSession, WaitReason } from '@dsh/terminal';
import { OPENING_MAX_CHARS, POLL_MAX_MS, POLL_MIN_MS, type ResolvedBashTerminalConfig } from './config.js';
import { writePaced } from './paced-writer.js';
import { type PromptMarker, parseMarker } from './rcfile.js';
import { Sanitizer } from './sanitizer.js';
import { Scrollback } from './scrollback.js';

interface Active {
  startSeq: number;
  startOffset: number;
  startedAt: number;
  /** Input went to the shell's prompt (as a paste): its prompt must follow the shell accepting it. */
  toShell: boolean;
  /** Offset where the shell accepted the line (paste mode off), once seen. */
  acceptedAt: number | null;
  /** The previous send ended without the shell's prompt: a prompt may be owed to it. */
  owed: boolean;
  /** When the foreground was first seen blocked on the terminal with no output after it. */
  waitSeenAt: number | null;
  /** Input is still being typed: a reader blocked between pieces is not "waiting for input". */
  writing: boolean;
  cancelled: boolean;
  timer: NodeJS.Timeout;
  resolve: (result: SendResult) => void;
}

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** A bash on a PTY, driven one send at a time. */
export class BashSession implements TerminalSession {
  opening = '';
  /** `performance.now()` when the latest prompt marker was parsed (for latency measurement). */
  markerSeenAt = 0;
  private readonly scroll: Scrollback;
  private readonly sanitizer: Sanitizer;
  private marker: (PromptMarker & { offset: number }) | null = null;
  private lastOutputAt = Date.now();
  private outputChunks = 0;
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
    /** Called once when the session is gone (releases the sandbox fence). */
    private readonly release: () => void = () => undefined,
  ) {
    this.scroll = new Scrollback(config.scrollbackChars);
    this.sanitizer = new Sanitizer(
      (payload, offset) => this.onOsc(payload, offset),
      (body, offset) => this.onCsi(body, offset),
    );
    handle.output.on('data', (chunk: string) => {
      this.scroll.append(this.sanitizer.push(chunk));
      this.lastOutputAt = Date.now();
      this.outputChunks += 1;
      if (this.active) this.active.waitSeenAt = null; // output after a block: look again
      this.pollDelay = POLL_MIN_MS;
      this.check(false);
    });
    void handle.done.then(
      (facts) => this.onExit(facts.exitCode),
      () => this.onExit(null),
    );
  }

  /** Resolves at the first prompt (true), or false when the shell exits or `ms` pass first. */
  async firstPrompt(ms: number): Promise<boolean> {
    const ok =
      this.marker !== null ||
      (await new Promise<boolean>((resolve) => {
        const finish = (result: boolean): void => {
          clearTimeout(timer);
          this.markerWaiters.delete(onMarker);
          resolve(result);
        };
        const timer = setTimeout(() => finish(false), ms);
        const onMarker = (): void => finish(this.marker !== null);
        this.markerWaiters.add(onMarker);
      }));
    if (ok && this.marker) this.opening = this.scroll.slice(0, this.marker.offset).text.slice(-OPENING_MAX_CHARS);
    return ok;
  }

  state(): 'running' | 'exited' {
    return this.exited ? 'exited' : 'running';
  }

  /** Whether the terminal's foreground is the shell (its own group, as its marker reports it; a wrapper may sit above it). */
  private atShell(facts: { foregroundPgid: number | null; shellPgid: number; command: string | null }): boolean {
    const fg = facts.foregroundPgid;
    if (fg === null || fg === facts.shellPgid) return true;
    return fg === this.marker?.shellPid;
  }

  send(input: { text: string; timeoutMs: number }): Promise<SendResult> {
    if (this.exited || this.closing) return Promise.resolve(this.result('session_exited', '', false));
    const facts = this.handle.inspectForeground();
    const toShell = !this.owed && this.atShell(facts);
    const lines = input.text.replace(/\r\n?/g, '\n').replace(/\n$/, '');
    // Several lines become one brace group: one command, so an interrupt abandons the lines not yet run.
    const command = lines.includes('\n') ? `{ ${lines}\n}` : lines;
    const payload = toShell ? `${PASTE_START}${command}${PASTE_END}\r` : `${lines.replace(/\n/g, '\r')}\r`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle('timeout'), input.timeoutMs);
      const active: Active = {
        startSeq: this.marker?.seq ?? 0,
        startOffset: this.scroll.end,
        startedAt: Date.now(),
        toShell,
        acceptedAt: null,
        owed: this.owed,
        waitSeenAt: null,
        writing: true,
        cancelled: false,
        timer,
        resolve,
      };
      this.active = active;
      let seenChunks = this.outputChunks;
      const caughtUp = (): boolean => {
        const output = this.outputChunks !== seenChunks;
        seenChunks = this.outputChunks;
        return output || this.handle.inspectForeground().stdinWait === true;
      };
      void writePaced(
        (chunk) => this.handle.write(chunk),
        payload,
        caughtUp,
        () => this.active !== active || this.exited,
      ).then(() => {
        active.writing = false;
      });
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

  private onCsi(body: string, offset: number): void {
    const a = this.active;
    if (body === '?2004l' && a?.toShell && a.acceptedAt === null) a.acceptedAt = offset;
  }

  private onExit(exitCode: number | null): void {
    if (this.exited) return;
    this.exited = true;
    this.release();
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

  /** This send's prompt: newer than the send, and after the shell accepted the input when it went to the prompt. */
  private freshMarker(a: Active): (PromptMarker & { offset: number }) | null {
    const m = this.marker;
    if (m === null || m.seq <= a.startSeq) return null;
    if (a.toShell && (a.acceptedAt === null || m.offset < a.acceptedAt)) return null;
    return m;
  }

  /** Decides whether the active send is done. `observe` also reads the foreground facts (polling). */
  private check(observe: boolean): void {
    const a = this.active;
    if (!a) return;
    const fresh = this.freshMarker(a) !== null;
    if (!fresh && !observe) return;
    const facts = this.handle.inspectForeground();
    // Facts from before this send (a world across a channel answers from its last look) prove
    // nothing about it: wait for a fresh observation, which the call above asked for.
    if (facts.observedAt !== undefined && facts.observedAt < a.startedAt) return;
    const atShell = this.atShell(facts);
    const quiet = Date.now() - Math.max(this.lastOutputAt, a.startedAt);
    if (fresh && atShell) {
      // After a send that left the shell busy, typed-ahead input may still run: the prompt must stay quiet.
      if (!a.owed || (quiet >= this.config.stdinSettleMs && facts.stdinWait !== false)) this.settle('stdin_read');
      return;
    }
    if (!observe || a.writing) return;
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
    if (facts.stdinWait === null && quiet >= this.config.idleSilenceMs) this.settle('inferred_idle');
  }

  private settle(reason: WaitReason): void {
    const a = this.active;
    if (!a) return;
    this.active = null;
    clearTimeout(a.timer);
    if (this.poll) clearTimeout(this.poll);
    this.poll = undefined;
    const m = reason === 'stdin_read' ? this.freshMarker(a) : null;
    this.owed = m === null && reason !== 'session_exited';
    const from = a.acceptedAt ?? a.startOffset;
    const end = m ? m.offset : this.scroll.end;
    let { text, lost } = this.scroll.slice(from, Math.max(from, end));
    if (a.acceptedAt !== null && text.startsWith('\n')) text = text.slice(1); // the line end after the accepted input
    const output =
      lost > 0 ? `[${lost} earlier characters of this output are no longer in the scrollback]\n${text}` : text;
    const exitCode = m ? m.exitCode : reason === 'session_exited' ? this.exitCode : null;
    a.resolve(this.result(reason, output, a.cancelled, exitCode));
  }

  private result(reason: WaitReason, output: string, cancelled: boolean, exitCode: number | null = null): SendResult {
    return { reason, output, state: this.state(), commandExitCode: exitCode, cancelled };
  }
}
