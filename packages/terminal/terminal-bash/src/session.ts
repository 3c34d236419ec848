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
import type { ForegroundFacts, SubprocessTerminalHandle } from '@dsh/subprocess';
import type {
  ScreenView,
  ScrollbackPage,
  SendInput,
  SendResult,
  TerminalSession,
  TerminalWatch,
  TerminalWatchEvent,
  WaitReason,
} from '@dsh/terminal';
import {
  EMULATOR_BACKLOG_LOW_CHARS,
  EMULATOR_BACKLOG_MAX_CHARS,
  OPENING_MAX_CHARS,
  POLL_MAX_MS,
  POLL_MIN_MS,
  type ResolvedBashTerminalConfig,
} from './config.js';
import { FRESH_FACTS_MAX_MS, factsSince } from './fresh-facts.js';
import { sendPayload } from './input.js';
import { knownPrompt } from './known-prompts.js';
import { LineEditor, SHELL_READ_WAIT_MS } from './line-editor.js';
import { writePaced } from './paced-writer.js';
import { PersonKeys } from './person-keys.js';
import { Poller } from './poller.js';
import { endsWithProgram } from './program-line.js';
import { PromptWatch } from './prompt-watch.js';
import { continuationPayload, PROMPT_TEXT, REDRAW_KEY } from './rcfile.js';
import { type ActiveSend, commandLine, decide, exitCodes, newActiveSend } from './readiness.js';
import { shoot } from './rewrites.js';
import { type Mark, Screen } from './screen.js';
import { earlierText, type ResultExtras, sendResult, stillKept } from './send-text.js';
import { settledTexts } from './settle.js';
import { Watchers } from './watchers.js';
import type { XtermModule } from './xterm-loader.js';

/** Ctrl-C as the terminal sends it: the line discipline interrupts the foreground and drops typed-ahead input. */
const INTERRUPT = '\x03';

/** A bash on a PTY, driven one send at a time. */
export class BashSession implements TerminalSession {
  opening = '';
  private readonly view: Screen;
  private readonly prompts: PromptWatch;
  private readonly continuation: string;
  private lastOutputAt = Date.now();
  private outputChunks = 0;
  private shellExit: number | null = null;
  private exited = false;
  private active: ActiveSend | null = null;
  /** Looks at the foreground facts while a send waits: fast after input or output, slower after. */
  private readonly poller = new Poller(() => {
    this.check(true);
    return this.active !== null;
  });
  private closing: Promise<void> | undefined;
  private owed = false;
  /** Parse order of the line editor's last event (a line accepted, or reading begun). */
  private editorOrder = -1;
  /** And its wall clock (epoch ms). */
  private editorAt = 0;
  /** Parse order of the line editor's last reading begun, and of its last line accepted. */
  private readyOrder = -1;
  private acceptOrder = -1;
  /** The shell's own line editor reads (it began to after the latest prompt, and accepted nothing since). */
  private shellReading = false;
  /** The last command line a send typed at the prompt (null: typed otherwise, by keys or a person). */
  private lastLine: string | null = null;
  /** Where the line editor last began to read (what follows is its prompt, and what is typed). */
  private lastReady: Mark | null = null;
  /** A send's wait for fresh foreground facts, before it begins. */
  private starting: Promise<unknown> | null = null;
  /** The exit code of a command that finished while no send waited (told to the next send). */
  private lateExit: number | null = null;
  private shellSignal: string | null = null;
  /** Where the last send's output ended: what follows was printed while no send waited. */
  private lastEnd: Mark | number = 0;
  private readonly watchers: Watchers;
  private readonly editor = new LineEditor();
  private readonly keys: PersonKeys;
  /** The PTY is held while the emulator catches up. */
  private outputHeld = false;

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
      marker: (payload, at) => {
        if (payload === this.continuation) {
          if (this.active) this.active.continued = true;
          this.view.forget(at);
          return;
        }
        if (!this.prompts.parsed(payload, at, this.lastEnd)) return;
        const latest = this.prompts.latest;
        const a = this.active;
        if (!a && this.owed) {
          // The command an earlier send left running has finished: the shell is at its prompt again.
          this.owed = false;
          this.lateExit = latest?.exitCode ?? null;
        } else if (a?.owed && latest && latest.seq === a.startSeq + 1) {
          a.aheadExit = latest.exitCode; // this send was typed ahead: the first prompt ends the earlier command
        }
      },
      accept: (at) => {
        this.editor.set(false);
        // The shell's own line editor accepted a line: the send's, or one typed otherwise (not
        // known). A program's paste mode switching (vim's) is not the shell's.
        if (this.shellReading) {
          const sending = this.active;
          this.lastLine = sending?.toShell && sending.line !== null ? sending.line : null;
        }
        this.shellReading = false;
        this.editorOrder = at.order;
        this.acceptOrder = at.order;
        this.editorAt = Date.now();
        const a = this.active;
        if (a?.toShell && a.acceptedAt === null) a.acceptedAt = at;
        else this.view.forget(at);
      },
      ready: (at) => {
        this.editor.set(true);
        this.editorOrder = at.order;
        this.readyOrder = at.order;
        // The shell's line editor when it is the first to read since the latest prompt (a program
        // it runs switches paste mode only after the shell accepted the line that ran it).
        this.shellReading = this.acceptOrder < (this.prompts.latest?.at.order ?? -1);
        if (this.shellReading) {
          if (this.lastReady) this.view.forget(this.lastReady);
          this.lastReady = this.view.markAt(at.row, at.col);
        }
        this.editorAt = Date.now();
        // What the shell printed after its prompt marker and before it read this send's line (a
        // job's "Done", a prompt hook's output) was printed while no send waited: it is `earlier`.
        const a = this.active;
        if (a?.toShell && a.acceptedAt === null && a.readyAt === null && !a.inputSent) a.readyAt = at;
        else this.view.forget(at);
      },
      parsed: () => this.check(false),
    });
    this.prompts = new PromptWatch(nonce, this.view);
    this.watchers = new Watchers(this.view);
    this.continuation = continuationPayload(nonce);
    this.keys = new PersonKeys(
      (chunk) => handle.write(chunk),
      () => this.exited || this.closing !== undefined,
    );
    handle.output.on('data', (chunk: string) => {
      const now = Date.now();
      // Output after a quiet spell (a prompt, maybe): look soon. A steady stream lets polling slow down.
      if (now - this.lastOutputAt > POLL_MAX_MS) this.poller.hurry();
      this.lastOutputAt = now;
      this.outputChunks += 1;
      if (this.active) this.active.waitSeenAt = null; // output after a block: look again
      this.view.feed(chunk);
      this.watchers.feed(chunk);
      this.holdWhileBehind();
    });
    void handle.done.then(
      (facts) => this.onExit(facts.exitCode, facts.signal),
      () => this.onExit(null, null),
    );
  }

  /** Holds the PTY while the emulator is far behind (a flood), and reads on as it catches up. */
  private holdWhileBehind(): void {
    if (this.outputHeld || this.view.backlog <= EMULATOR_BACKLOG_MAX_CHARS) return;
    this.outputHeld = true;
    this.handle.output.pause();
    const look = (): void => {
      if (this.exited || this.view.backlog <= EMULATOR_BACKLOG_LOW_CHARS) {
        this.outputHeld = false;
        this.handle.output.resume();
      } else setTimeout(look, POLL_MIN_MS);
    };
    setTimeout(look, POLL_MIN_MS);
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

  exitSignal(): string | null {
    return this.shellSignal;
  }

  foreground(): string | null {
    if (this.exited) return null;
    const facts = this.handle.inspectForeground();
    return this.atShell(facts) ? null : facts.command;
  }

  screen(): ScreenView {
    return this.view.snapshot();
  }

  resize(cols: number, rows: number): void {
    if (this.exited) return;
    this.handle.resize(cols, rows); // the program redraws on SIGWINCH
    this.view.resize(cols, rows);
    this.watchers.redraw();
  }

  scrollback(page: { offset?: number; limit: number }): ScrollbackPage {
    return this.view.page(page.offset, page.limit);
  }

  /**
   * Whether the terminal's foreground is the shell (its own group, as its marker reports it). A
   * command its prompt hook runs (after the marker, before the line editor reads) counts as the
   * shell: input typed then waits for the prompt, it is not input to a program.
   */
  private atShell(facts: { foregroundPgid: number | null; shellPgid: number; observedAt?: number }): boolean {
    const fg = facts.foregroundPgid;
    const latest = this.prompts.latest;
    const marker = latest?.at.order ?? Number.POSITIVE_INFINITY;
    const inPromptHook = marker > this.editorOrder && latest !== null;
    // Facts a channel took before the line editor began to read after the latest prompt (and
    // accepted nothing since) are older than what the editor tells: the shell reads its line.
    const stale = facts.observedAt !== undefined && facts.observedAt < this.editorAt;
    const shellReads = stale && this.shellReading && this.readyOrder > marker;
    return fg === null || fg === facts.shellPgid || fg === latest?.shellPid || inPromptHook || shellReads;
  }

  watch(listener: (event: TerminalWatchEvent) => void): Promise<TerminalWatch> {
    return this.watchers.add(listener);
  }

  type(data: string): Promise<void> {
    return this.keys.type(data, this.readerCaughtUp());
  }

  async send(input: SendInput): Promise<SendResult> {
    if (this.exited || this.closing) return this.result('session_exited', '', false);
    // Facts from before the shell's latest prompt or line editor event (a world across a channel)
    // would send the input to a program that ended.
    const askedAt = Date.now();
    const starting = this.freshFacts(input.timeoutMs);
    this.starting = starting;
    const facts = await starting;
    if (this.starting === starting) this.starting = null;
    if (this.exited || this.closing) return this.result('session_exited', '', false);
    const toShell = !this.owed && !this.view.alternate && this.atShell(facts);
    const sent = sendPayload(input, {
      toShell,
      applicationCursor: this.view.applicationCursor,
      bracketedPaste: this.view.bracketedPaste,
    });
    // Printed at the prompt while readline read (a job's end): it redraws the line first.
    const payload = toShell && sent.payload !== '' && this.promptDisplaced() ? REDRAW_KEY + sent.payload : sent.payload;
    if (payload === '' && toShell) return this.idleWait(); // a wait, and nothing runs
    // Whether pasted or typed (keys, Up + Enter), input at the prompt runs once the shell accepts the line.
    const emptyLine = toShell && input.text.trim() === '' && input.keys.length === 0;
    // Input goes to a program when one holds the terminal; the shell's own group (a `read`, a loop
    // of builtins) takes it as part of the command an earlier send started.
    const program = !toShell && payload !== '' && !this.atShell(facts);
    const heldBy = program ? (facts.command ?? 'the program in the foreground') : null;
    const timeoutMs = Math.max(1, input.timeoutMs - (Date.now() - askedAt)); // the wait for facts is part of the send's time
    const line = toShell && sent.command ? input.text.replace(/\n$/, '') : null;
    // A line that ends here (Enter) with text already on the shell's command line runs with it.
    const prefix = payload.includes('\r') && this.atShell(facts) ? this.pendingLine() : null;
    return this.begin(payload, toShell, timeoutMs, false, emptyLine, heldBy, line, prefix);
  }

  /** Foreground facts observed after the shell's latest prompt or line editor event (waiting at most a part of `timeoutMs`). */
  private freshFacts(timeoutMs: number): Promise<ForegroundFacts> {
    const since = () => Math.max(this.prompts.wallAt, this.editorAt);
    return factsSince(this.handle, since, Math.min(FRESH_FACTS_MAX_MS, timeoutMs / 2));
  }

  /** What was drawn since the shell's own line editor began to read (its prompt, then what is typed), or null. */
  private sinceReady(): string | null {
    const ready = this.lastReady;
    return ready === null || !this.shellReading ? null : this.view.text(ready, this.view.end).text;
  }

  /** Text on the shell's command line after its prompt, typed since it began to read (null: none, or not known). */
  private pendingLine(): string | null {
    const shown = this.sinceReady();
    if (shown === null || !shown.startsWith(`${PROMPT_TEXT} `) || shown.includes('\n')) return null;
    const typed = shown.slice(PROMPT_TEXT.length + 1).replace(/ +$/, '');
    return typed === '' ? null : typed;
  }

  /** Whether more than the prompt was printed since the line editor last began to read (and read nothing yet). */
  private promptDisplaced(): boolean {
    const shown = this.sinceReady();
    return shown !== null && shown.replace(/ +$/, '') !== PROMPT_TEXT;
  }

  /** A send that types nothing while the shell idles at its prompt: what was printed since the last send. */
  private idleWait(): SendResult {
    const start = this.view.mark();
    const earlier = earlierText(this.view, this.lastEnd, start);
    if (typeof this.lastEnd !== 'number') this.view.forget(this.lastEnd);
    this.lastEnd = start;
    const previousExitCode = this.lateExit;
    this.lateExit = null;
    return this.result('stdin_read', '', false, null, { ...earlier, previousExitCode, atPrompt: true });
  }

  async cancel(timeoutMs: number): Promise<SendResult | null> {
    // A send still waiting for fresh facts begins first (it awaited the same promise earlier), so this cancel interrupts it.
    if (this.starting) await this.starting;
    this.keys.drop(); // a person's keys not yet written are dropped
    if (this.exited || this.closing) return this.result('session_exited', '', true);
    // Whether the shell idles at its prompt is judged as a send judges it: by facts newer than its
    // latest prompt (older ones, across a channel, would have ^C typed at the prompt).
    const facts = this.active ? null : await this.freshFacts(timeoutMs);
    if (this.exited || this.closing) return this.result('session_exited', '', true);
    const a = this.active;
    if (a) {
      a.cancelled = true;
      a.abandoned = true; // the pieces of input not yet written are dropped too
      if (Date.now() + timeoutMs < a.deadlineAt) {
        // The cancel's wait bounds the send in flight too (a program may ignore Ctrl-C).
        clearTimeout(a.timer);
        a.deadlineAt = Date.now() + timeoutMs;
        a.timer = setTimeout(() => this.settle('timeout'), timeoutMs);
      }
      this.handle.write(INTERRUPT);
      this.poller.hurry();
      this.poller.start();
      return a.result;
    }
    if (!this.owed && !this.view.alternate && this.atShell(facts ?? this.handle.inspectForeground())) return null; // idle at the prompt
    return this.begin(INTERRUPT, false, timeoutMs, true);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.handle.terminate();
      } finally {
        this.onExit(this.shellExit);
        this.watchers.close();
        this.view.dispose();
      }
    })();
    return this.closing;
  }

  private begin(
    payload: string,
    toShell: boolean,
    timeoutMs: number,
    cancelled: boolean,
    emptyLine = false,
    heldBy: string | null = null,
    line: string | null = null,
    linePrefix: string | null = null,
  ): Promise<SendResult> {
    const start = this.view.mark();
    const earlier = { ...earlierText(this.view, this.lastEnd, start), previousExitCode: this.lateExit };
    this.lateExit = null;
    const active = newActiveSend(
      {
        startSeq: this.prompts.latest?.seq ?? 0,
        start,
        shot: shoot(this.view),
        emptyLine,
        toShell,
        heldBy,
        line,
        linePrefix,
        waitOnly: payload === '' && !cancelled,
        owed: this.owed,
        deadlineAt: Date.now() + timeoutMs,
      },
      { payload, cancelled, earlier },
      setTimeout(() => this.settle('timeout'), timeoutMs),
    );
    this.active = active;
    const caughtUp = this.readerCaughtUp();
    // Once input began, a send that settled stops the rest of it; before that only a cancel or the
    // end of the session drop it (a send that timed out while it waited still types its input).
    const stopped = (): boolean => this.exited || active.abandoned || (active.inputSent && this.active !== active);
    const write = (chunk: string): void => {
      active.inputSent = true;
      this.handle.write(chunk);
    };
    // Input for the prompt is written once the shell reads it, not while its prompt hook still runs.
    void (toShell ? this.editor.whenReading(Math.min(SHELL_READ_WAIT_MS, timeoutMs / 2)) : Promise.resolve())
      .then(() => writePaced(write, payload, caughtUp, stopped))
      .then(() => {
        active.writing = false;
      });
    this.poller.hurry();
    this.poller.start();
    return active.result;
  }

  /** For paced input: whether the reader caught up since the last look (it printed, or it waits on the terminal again). */
  private readerCaughtUp(): () => boolean {
    let seenChunks = this.outputChunks;
    return () => {
      const output = this.outputChunks !== seenChunks;
      seenChunks = this.outputChunks;
      return output || this.handle.inspectForeground().stdinWait === true;
    };
  }

  private onExit(exitCode: number | null, signal: string | null = this.shellSignal): void {
    if (this.exited) return;
    this.exited = true;
    this.release();
    this.shellExit = exitCode;
    this.shellSignal = signal;
    this.prompts.wake();
    this.editor.wake();
    this.settle('session_exited');
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
        printed: this.lastOutputAt > a.startedAt,
        now,
      },
      this.config,
    );
    if (reason) this.settle(reason);
  }

  private settle(why: WaitReason): void {
    const a = this.active;
    if (!a) return;
    // The send's own prompt marker came before its time ran out (its facts were still on their
    // way): the command line has finished, and its exit code is this result's.
    this.view.parseHeld();
    const reason = why === 'timeout' && !a.owed && this.prompts.ownPrompt(a) !== null ? 'stdin_read' : why;
    this.active = null;
    clearTimeout(a.timer);
    this.poller.stop();
    const m = reason === 'stdin_read' ? this.prompts.ownPrompt(a) : null;
    this.owed = m === null && reason !== 'session_exited';
    const settled = settledTexts(this.view, a, m, this.lastEnd, reason !== 'session_exited');
    const got = { ...settled, earlier: stillKept(settled.earlier, this.view.keptFrom) };
    this.lastEnd = got.end;
    const codes = m ? exitCodes(a, m) : { commandExitCode: null, programExitCode: null };
    const exitCode = m ? codes.commandExitCode : reason === 'session_exited' ? this.shellExit : null;
    a.resolve(
      this.result(reason, got.text, a.cancelled, exitCode, {
        inputTo: a.heldBy,
        programExitCode: codes.programExitCode,
        linePrefix: a.linePrefix,
        programLine:
          codes.programExitCode !== null && a.heldBy !== null && !endsWithProgram(this.lastLine, a.heldBy)
            ? (this.lastLine ?? 'not known')
            : null,
        knownPrompt:
          m || reason === 'session_exited' ? null : knownPrompt(this.view.snapshot().text, this.foreground()),
        ...got.earlier,
        // Typed ahead, and the shell read this send's line after the earlier command ended.
        ...(got.earlier.previousExitCode === null && m !== null && m.seq > a.startSeq + 1 && a.aheadExit !== null
          ? { previousExitCode: a.aheadExit }
          : {}),
        screen: got.screen,
        cursor: got.cursor,
        omitted: got.lost,
        omittedGone: got.gone,
        outputOffset: got.offset,
        atPrompt: m !== null,
        commandLine: commandLine(a, m !== null),
      }),
    );
  }

  private result(
    reason: WaitReason,
    output: string,
    cancelled: boolean,
    exitCode: number | null = reason === 'session_exited' ? this.shellExit : null,
    extra: ResultExtras = {},
  ): SendResult {
    const exitSignal = reason === 'session_exited' ? this.shellSignal : null;
    return sendResult({ reason, output, state: this.state(), commandExitCode: exitCode, cancelled, exitSignal }, extra);
  }
}
