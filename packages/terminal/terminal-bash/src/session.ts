/**
 * A persistent bash session behind a terminal emulator (see screen.ts). Prompt markers are
 * matched against the session nonce where the emulator parses them, and each send settles on
 * combined evidence:
 * - `stdin_read`: the prompt marker of this send (by sequence, after the shell accepted the
 *   input) with the foreground back at the shell; or a program blocked reading the terminal;
 *   or the shell itself blocked on the terminal with no new prompt (a `read`, an unfinished line);
 * - `inferred_idle`: output quiet for long while the foreground cannot be observed;
 * - `timeout`: the absolute deadline (the session keeps running);
 * - `session_exited`: the shell is gone (its exit code stays for every later call).
 * The shell switches paste mode off (CSI ?2004l) the moment it accepts the line: that marks where
 * the echo ends and the command's output begins. Output printed while no send waited is handed
 * to the next send as `earlier`.
 */
import type { SubprocessTerminalHandle } from '@dsh/subprocess';
import type { ScreenView, ScrollbackPage, SendInput, SendResult, TerminalSession, WaitReason } from '@dsh/terminal';
import { OPENING_MAX_CHARS, POLL_MAX_MS, POLL_MIN_MS, type ResolvedBashTerminalConfig } from './config.js';
import { sendPayload } from './input.js';
import { writePaced } from './paced-writer.js';
import { PromptWatch } from './prompt-watch.js';
import { type ActiveSend, decide } from './readiness.js';
import { type Mark, Screen } from './screen.js';
import { earlierText, sendText } from './send-text.js';
import type { XtermModule } from './xterm-loader.js';

/** Ctrl-C as the terminal sends it: the line discipline interrupts the foreground and drops typed-ahead input. */
const INTERRUPT = '\x03';

/** A bash on a PTY, driven one send at a time. */
export class BashSession implements TerminalSession {
  opening = '';
  private readonly view: Screen;
  private readonly prompts: PromptWatch;
  private lastOutputAt = Date.now();
  private outputChunks = 0;
  private shellExit: number | null = null;
  private exited = false;
  private active: ActiveSend | null = null;
  private poll: NodeJS.Timeout | undefined;
  private pollDelay = POLL_MIN_MS;
  private closing: Promise<void> | undefined;
  private owed = false;
  /** Where the last send's output ended: what follows was printed while no send waited. */
  private lastEnd: Mark | number = 0;

  constructor(
    private readonly handle: SubprocessTerminalHandle,
    nonce: string,
    private readonly config: ResolvedBashTerminalConfig,
    xterm: XtermModule,
    size: { cols: number; rows: number },
    /** Called once when the session is gone (releases the sandbox fence). */
    private readonly release: () => void = () => undefined,
  ) {
    this.view = new Screen(xterm, size.cols, size.rows, config.scrollbackChars, {
      reply: (data) => handle.write(data),
      marker: (payload, at) => this.prompts.parsed(payload, at, this.lastEnd),
      accept: (at) => {
        const a = this.active;
        if (a?.toShell && a.acceptedAt === null) a.acceptedAt = at;
        else this.view.forget(at);
      },
      parsed: () => this.check(false),
    });
    this.prompts = new PromptWatch(nonce, this.view);
    handle.output.on('data', (chunk: string) => {
      const now = Date.now();
      // Output after a quiet spell (a prompt, maybe): look soon. A steady stream lets polling slow down.
      if (now - this.lastOutputAt > POLL_MAX_MS) this.pollDelay = POLL_MIN_MS;
      this.lastOutputAt = now;
      this.outputChunks += 1;
      if (this.active) this.active.waitSeenAt = null; // output after a block: look again
      this.view.feed(chunk);
    });
    void handle.done.then(
      (facts) => this.onExit(facts.exitCode),
      () => this.onExit(null),
    );
  }

  /** `performance.now()` when the latest prompt marker was parsed (for latency measurement). */
  get markerSeenAt(): number {
    return this.prompts.seenAt;
  }

  /** Resolves at the first prompt (true), or false when the shell exits or `ms` pass first. */
  async firstPrompt(ms: number): Promise<boolean> {
    const first = await this.prompts.first(ms);
    if (first) {
      this.opening = this.view.text(0, first.at).text.slice(-OPENING_MAX_CHARS);
      this.lastEnd = first.at;
    }
    return first !== null;
  }

  state(): 'running' | 'exited' {
    return this.exited ? 'exited' : 'running';
  }

  exitCode(): number | null {
    return this.shellExit;
  }

  foreground(): string | null {
    if (this.exited) return null;
    const facts = this.handle.inspectForeground();
    return this.atShell(facts) ? null : facts.command;
  }

  screen(): ScreenView {
    return this.view.snapshot();
  }

  scrollback(page: { offset?: number; limit: number }): ScrollbackPage {
    return this.view.page(page.offset, page.limit);
  }

  /** Whether the terminal's foreground is the shell (its own group, as its marker reports it). */
  private atShell(facts: { foregroundPgid: number | null; shellPgid: number }): boolean {
    const fg = facts.foregroundPgid;
    return fg === null || fg === facts.shellPgid || fg === this.prompts.latest?.shellPid;
  }

  send(input: SendInput): Promise<SendResult> {
    if (this.exited || this.closing) return Promise.resolve(this.result('session_exited', '', false));
    const facts = this.handle.inspectForeground();
    const toShell = !this.owed && !this.view.alternate && this.atShell(facts);
    const { payload } = sendPayload(input, { toShell, applicationCursor: this.view.applicationCursor });
    // Whether pasted or typed (keys, Up + Enter), input at the prompt runs once the shell accepts the line.
    return this.begin(payload, toShell, input.timeoutMs, false);
  }

  async cancel(timeoutMs: number): Promise<SendResult | null> {
    if (this.exited || this.closing) return this.result('session_exited', '', true);
    const a = this.active;
    if (a) {
      a.cancelled = true;
      a.abandoned = true; // the pieces of input not yet written are dropped too
      this.handle.write(INTERRUPT);
      this.pollDelay = POLL_MIN_MS;
      this.schedulePoll();
      return a.result;
    }
    const facts = this.handle.inspectForeground();
    if (!this.owed && !this.view.alternate && this.atShell(facts)) return null; // idle at the prompt
    return this.begin(INTERRUPT, false, timeoutMs, true);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.handle.terminate();
      } finally {
        this.onExit(this.shellExit);
        this.view.dispose();
      }
    })();
    return this.closing;
  }

  private begin(payload: string, toShell: boolean, timeoutMs: number, cancelled: boolean): Promise<SendResult> {
    const start = this.view.mark();
    const earlier = earlierText(this.view, this.lastEnd, start);
    let resolve!: (r: SendResult) => void;
    const result = new Promise<SendResult>((r) => {
      resolve = r;
    });
    const active: ActiveSend = {
      startSeq: this.prompts.latest?.seq ?? 0,
      start,
      startedAt: Date.now(),
      toShell,
      acceptedAt: null,
      owed: this.owed,
      waitSeenAt: null,
      writing: true,
      cancelled,
      abandoned: false,
      earlier,
      timer: setTimeout(() => this.settle('timeout'), timeoutMs),
      result,
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
      () => this.active !== active || this.exited || active.abandoned,
    ).then(() => {
      active.writing = false;
    });
    this.pollDelay = POLL_MIN_MS;
    this.schedulePoll();
    return result;
  }

  private onExit(exitCode: number | null): void {
    if (this.exited) return;
    this.exited = true;
    this.release();
    this.shellExit = exitCode;
    this.prompts.wake();
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

  /** Decides whether the active send is done. `observe` also reads the foreground facts (polling). */
  private check(observe: boolean): void {
    const a = this.active;
    if (!a || this.view.busy) return; // output not parsed yet may hold this send's prompt
    const fresh = this.prompts.ownPrompt(a) !== null;
    if (!fresh && !observe) return;
    const facts = this.handle.inspectForeground();
    // Facts from before this send (a world across a channel answers from its last look) prove
    // nothing about it: wait for a fresh observation, which the call above asked for.
    if (facts.observedAt !== undefined && facts.observedAt < a.startedAt) return;
    const now = Date.now();
    const reason = decide(
      a,
      {
        fresh,
        observe,
        atShell: this.atShell(facts),
        stdinWait: facts.stdinWait,
        quietMs: now - Math.max(this.lastOutputAt, a.startedAt),
        now,
      },
      this.config,
    );
    if (reason) this.settle(reason);
  }

  private settle(reason: WaitReason): void {
    const a = this.active;
    if (!a) return;
    this.active = null;
    clearTimeout(a.timer);
    if (this.poll) clearTimeout(this.poll);
    this.poll = undefined;
    const m = reason === 'stdin_read' ? this.prompts.ownPrompt(a) : null;
    this.owed = m === null && reason !== 'session_exited';
    const from = a.acceptedAt ?? a.start;
    const end: Mark = m ? m.at : this.view.mark();
    if (typeof this.lastEnd !== 'number') this.view.forget(this.lastEnd);
    this.lastEnd = end;
    this.view.forget(a.start);
    if (a.acceptedAt && a.acceptedAt !== from) this.view.forget(a.acceptedAt);
    const exitCode = m ? m.exitCode : reason === 'session_exited' ? this.shellExit : null;
    if (this.view.alternate && reason !== 'session_exited') {
      const shot = this.view.snapshot();
      a.resolve(this.result(reason, shot.text, a.cancelled, exitCode, { screen: true, ...a.earlier }));
      return;
    }
    const { text, lost } = sendText(this.view, from, end, a.acceptedAt !== null);
    this.view.forget(from);
    a.resolve(this.result(reason, text, a.cancelled, exitCode, { omitted: lost, ...a.earlier }));
  }

  private result(
    reason: WaitReason,
    output: string,
    cancelled: boolean,
    exitCode: number | null = reason === 'session_exited' ? this.shellExit : null,
    extra: Partial<Pick<SendResult, 'screen' | 'omitted' | 'earlier' | 'earlierOmitted'>> = {},
  ): SendResult {
    const base = { screen: false, omitted: 0, earlier: '', earlierOmitted: 0 };
    return { reason, output, ...base, ...extra, state: this.state(), commandExitCode: exitCode, cancelled };
  }
}
