/**
 * The client side of one tree in another world: the whole `SubprocessHandle` contract over the
 * channel. Collected streams are mirrors (synchronous reads work here); raw pipes are local
 * streams fed by the channel, with the consumer's backpressure sent back; stdin writes complete
 * when the remote child took them. The pid is the remote one, known once the server started it.
 * A lost channel settles the handle with `WORLD_DISCONNECTED`.
 */
import { Readable, Writable } from 'node:stream';
import { DshError } from '@dsh/core';
import type { OutputReader, SpawnSpec, SubprocessHandle, SubprocessOutcome } from '@dsh/subprocess';
import type { RuntimeClient } from './client.js';
import type { Message } from './frames.js';
import { MirrorReader } from './mirror-reader.js';
import { STREAM, type StreamName, streamId, toWire } from './wire.js';

type Outcome = SubprocessOutcome;

function outcomeOf(m: Message): Outcome {
  const error = m.error as { code?: string; message?: string } | null | undefined;
  return {
    exitCode: typeof m.exitCode === 'number' ? m.exitCode : null,
    signal: typeof m.signal === 'string' ? m.signal : null,
    error: error ? { code: String(error.code ?? 'SPAWN_FAILED'), message: String(error.message ?? '') } : null,
  };
}

/** A raw pipe from the far side, pausing the remote stream while its consumer is full. */
class RemotePipe extends Readable {
  private paused = false;
  constructor(private readonly flow: (pause: boolean) => void) {
    super();
  }
  feed(bytes: Buffer): void {
    if (!this.push(bytes) && !this.paused) {
      this.paused = true;
      this.flow(true);
    }
  }
  override _read(): void {
    if (!this.paused) return;
    this.paused = false;
    this.flow(false);
  }
}

/** A remote tree's handle. */
export class RemoteSubprocessHandle implements SubprocessHandle {
  readonly stdin: Writable | null = null;
  readonly stdout: Readable | null = null;
  readonly stderr: Readable | null = null;
  readonly stdoutReader: OutputReader | null;
  readonly stderrReader: OutputReader | null;
  readonly done: Promise<Outcome>;
  readonly exit: Promise<Outcome>;
  private remotePid: number | undefined;
  private resolveExit!: (o: Outcome) => void;
  private resolveDone!: (o: Outcome) => void;
  private readonly mirrors: Partial<Record<StreamName, MirrorReader>> = {};
  private readonly pipes: Partial<Record<StreamName, RemotePipe>> = {};
  private readonly inherit: Partial<Record<StreamName, NodeJS.WriteStream>> = {};
  private readonly h: number;
  private stdinAcks: (() => void)[] = [];
  private settled = false;
  private treeGone = false;
  private terminating: Promise<void> | undefined;

  constructor(
    private readonly client: RuntimeClient,
    spec: SpawnSpec,
  ) {
    this.exit = new Promise((r) => {
      this.resolveExit = r;
    });
    this.done = new Promise((r) => {
      this.resolveDone = r;
    });
    this.h = client.register({
      event: (m) => this.onEvent(m),
      data: (s, bytes) => this.onData(s, bytes),
      lost: (e) => this.onLost(e),
    });
    for (const name of ['stdout', 'stderr'] as const) {
      const d = spec[name];
      if (d.kind === 'collect') this.mirrors[name] = new MirrorReader(d.maxBytes);
      else if (d.kind === 'pipe') {
        this.pipes[name] = new RemotePipe((pause) =>
          client.notify(pause ? 'pause' : 'resume', { h: this.h, stream: name }),
        );
      } else this.inherit[name] = name === 'stdout' ? process.stdout : process.stderr;
    }
    this.stdoutReader = this.mirrors.stdout ?? null;
    this.stderrReader = this.mirrors.stderr ?? null;
    (this as { stdout: Readable | null }).stdout = this.pipes.stdout ?? null;
    (this as { stderr: Readable | null }).stderr = this.pipes.stderr ?? null;
    if (spec.stdin.kind === 'pipe') (this as { stdin: Writable | null }).stdin = this.stdinWriter();
    if (spec.signal?.aborted) {
      this.fail({ code: 'ABORTED', message: 'the spawn was aborted before the program started.' });
      return;
    }
    client.notify('spawn', { h: this.h, spec: toWire(spec) });
    spec.signal?.addEventListener('abort', () => void this.terminate(), { once: true });
  }

  get pid(): number | undefined {
    return this.remotePid;
  }

  terminate(): Promise<void> {
    this.terminating ??= (async () => {
      await this.client.request('terminate', { h: this.h }).catch(() => undefined);
      await this.done;
    })();
    return this.terminating;
  }

  async endTree(): Promise<number> {
    if (this.treeGone) return 0;
    const alive = Number(await this.client.request('end-tree', { h: this.h }).catch(() => 0));
    await this.terminate();
    return Number.isFinite(alive) ? alive : 0;
  }

  async waitForExit(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new DshError('ABORTED', 'waitForExit was aborted before the tree exited.');
    if (this.treeGone) return;
    try {
      await this.client.request('wait', { h: this.h }, signal);
      await this.exit;
      this.treeGone = true;
    } catch (error) {
      if (error instanceof DshError && error.code === 'ABORTED') {
        throw new DshError('ABORTED', 'waitForExit was aborted before the tree exited.');
      }
      // a lost channel: the far side ends its trees when its input closes
    }
  }

  private stdinWriter(): Writable {
    const id = streamId(this.h, STREAM.stdin);
    return new Writable({
      write: (chunk: Buffer, _enc, callback) => {
        if (this.settled || this.client.lostError) return callback();
        this.stdinAcks.push(() => callback());
        this.client.sendData(id, chunk);
      },
      final: (callback) => {
        this.client.notify('stdin-end', { h: this.h });
        callback();
      },
    });
  }

  private onData(s: number, bytes: Buffer): void {
    const name: StreamName | null = s === STREAM.stdout ? 'stdout' : s === STREAM.stderr ? 'stderr' : null;
    if (!name) return;
    this.mirrors[name]?.push(bytes);
    this.pipes[name]?.feed(bytes);
    this.inherit[name]?.write(bytes);
  }

  private onEvent(m: Message): void {
    const name = m.stream === 'stderr' ? 'stderr' : 'stdout';
    switch (m.ev) {
      case 'start':
        this.remotePid = typeof m.pid === 'number' ? m.pid : undefined;
        return;
      case 'exit':
        this.resolveExit(outcomeOf(m));
        return;
      case 'done':
        this.settle(outcomeOf(m));
        return;
      case 'spill':
        this.mirrors[name]?.setSpill(
          typeof m.path === 'string' ? m.path : null,
          typeof m.error === 'string' ? m.error : null,
        );
        return;
      case 'skip':
        this.mirrors[name]?.skip(Number(m.bytes));
        return;
      case 'finish':
        this.mirrors[name]?.finish(m.cutOff === true);
        return;
      case 'eof':
        this.endPipe(name);
        return;
      case 'ack':
        this.stdinAcks.shift()?.();
        return;
    }
  }

  private settle(outcome: Outcome): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveExit(outcome);
    for (const m of Object.values(this.mirrors)) m?.finish(false);
    if (outcome.error) {
      this.treeGone = true;
      for (const name of ['stdout', 'stderr'] as const) this.endPipe(name); // nothing started: no pipe will end by itself
    }
    this.resolveDone(outcome);
    this.release();
  }

  private endPipe(name: StreamName): void {
    const pipe = this.pipes[name];
    if (pipe && !pipe.readableEnded) pipe.push(null);
    delete this.pipes[name];
    this.release();
  }

  /** Stops listening once nothing more can come: settled, and every raw pipe ended. */
  private release(): void {
    if (this.settled && Object.keys(this.pipes).length === 0) this.client.unregister(this.h);
  }

  private fail(error: { code: string; message: string }): void {
    this.settle({ exitCode: null, signal: null, error });
  }

  private onLost(error: DshError): void {
    for (const ack of this.stdinAcks.splice(0)) ack();
    if (!this.settled) this.fail({ code: error.code, message: error.message });
    for (const name of ['stdout', 'stderr'] as const) this.endPipe(name);
    this.treeGone = true;
  }
}
