/**
 * The client side of one terminal in another world. Output arrives as UTF-8 bytes and is
 * decoded without splitting characters; input and resizes go over as notifications. The
 * contract's foreground calls are synchronous, while the facts live on the far side: this
 * handle answers from the latest observation (stamped `observedAt`, the moment it was asked
 * for) and asks for a fresh one on every call, so a caller that polls (as terminal readiness
 * does) sees facts at most one round trip old. `signalForeground` is sent at once and reports
 * whether the terminal was still running; the far side verifies the group.
 */
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { DshError } from '@dsh/core';
import { FOREGROUND_SIGNALS, type ForegroundFacts, type SubprocessTerminalHandle } from '@dsh/subprocess';
import type { RuntimeClient } from './client.js';
import type { Message } from './frames.js';
import { STREAM } from './wire.js';

/** A remote terminal's handle. Made by `RemoteSubprocessRuntime.spawnTerminal` once the far side started it. */
export class RemoteTerminalHandle implements SubprocessTerminalHandle {
  readonly output: Readable;
  readonly done: Promise<{ exitCode: number | null; signal: string | null }>;
  private readonly stream = new PassThrough({ encoding: 'utf8' });
  private readonly decoder = new StringDecoder('utf8');
  private resolveDone!: (facts: { exitCode: number | null; signal: string | null }) => void;
  private rejectDone!: (error: Error) => void;
  private facts: ForegroundFacts;
  private asking = false;
  private exited = false;
  /** The far side was asked to hold output. */
  private held = false;
  private terminating: Promise<void> | undefined;

  constructor(
    private readonly client: RuntimeClient,
    private readonly h: number,
    readonly pid: number,
  ) {
    this.output = this.stream;
    this.facts = { shellPgid: pid, foregroundPgid: null, stdinWait: null, command: null, observedAt: 0 };
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.done.catch(() => undefined);
    this.refresh();
  }

  /** Routes what the channel says about this terminal. */
  onData(s: number, bytes: Buffer): void {
    if (s !== STREAM.terminal) return;
    // A reader that stops (an emulator behind) holds the far side's PTY too, so a flood waits there.
    if (!this.stream.write(this.decoder.write(bytes)) && !this.held && !this.exited) {
      this.held = true;
      this.client.notify('tflow', { h: this.h, held: true });
      this.stream.once('drain', () => {
        this.held = false;
        if (!this.exited) this.client.notify('tflow', { h: this.h, held: false });
      });
    }
  }

  onEvent(m: Message): void {
    if (m.ev !== 'tdone') return;
    this.finish();
    const facts = {
      exitCode: typeof m.exitCode === 'number' ? m.exitCode : null,
      signal: typeof m.signal === 'string' ? m.signal : null,
    };
    this.resolveDone(facts);
  }

  onLost(error: DshError): void {
    if (this.exited) return;
    this.finish();
    this.rejectDone(error);
  }

  write(text: string): void {
    if (typeof text !== 'string') throw new DshError('INVALID_ARGUMENT', 'terminal write needs a string.');
    if (!this.exited) this.client.notify('write', { h: this.h, text });
  }

  resize(cols: number, rows: number): void {
    for (const [field, v] of [
      ['cols', cols],
      ['rows', rows],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 1 || v > 10_000) {
        throw new DshError('INVALID_ARGUMENT', `terminal ${field} must be an integer in [1, 10000].`, {
          data: { field },
        });
      }
    }
    if (!this.exited) this.client.notify('resize', { h: this.h, cols, rows });
  }

  inspectForeground(): ForegroundFacts {
    this.refresh();
    return { ...this.facts };
  }

  /** @throws DshError `INVALID_ARGUMENT` for a signal a terminal user cannot send. */
  signalForeground(signal: string): boolean {
    if (!FOREGROUND_SIGNALS.has(signal)) {
      throw new DshError('INVALID_ARGUMENT', `signalForeground accepts ${[...FOREGROUND_SIGNALS].join(', ')}.`, {
        data: { signal },
      });
    }
    if (this.exited) return false;
    void this.client.request('signal-fg', { h: this.h, signal }).catch(() => undefined);
    return true;
  }

  terminate(): Promise<void> {
    this.terminating ??= (async () => {
      await this.client.request('tterminate', { h: this.h }).catch(() => undefined);
      await this.done.catch(() => undefined);
    })();
    return this.terminating;
  }

  /** Asks for fresh facts unless a request is already out. */
  private refresh(): void {
    if (this.asking || this.exited) return;
    this.asking = true;
    const askedAt = Date.now();
    this.client.request('facts', { h: this.h }).then(
      (value) => {
        this.asking = false;
        if (value && typeof value === 'object') this.facts = { ...(value as ForegroundFacts), observedAt: askedAt };
      },
      () => {
        this.asking = false;
      },
    );
  }

  private finish(): void {
    if (this.exited) return;
    this.exited = true;
    const rest = this.decoder.end();
    if (rest) this.stream.write(rest);
    this.stream.end();
  }
}
