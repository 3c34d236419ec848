/**
 * Server side of one spawned tree: starts it on the server's runtime and forwards everything
 * the client needs — start, exit and done facts; collected streams (via {@link ForwardedCollect});
 * raw pipes with backpressure (paused while the channel or the client's reader is full); stdin
 * writes acknowledged once the child took them.
 */
import type { Readable } from 'node:stream';
import type { OutputCollector, SubprocessHandle, SubprocessOutcome, SubprocessRuntime } from '@dsh/subprocess';
import { ForwardedCollect } from './forward-collect.js';
import type { Peer } from './peer.js';
import { fromWire, STREAM, type StreamName, streamId, toWireError, type WireSpec } from './wire.js';

function outcomeEvent(h: number, ev: 'exit' | 'done', o: SubprocessOutcome) {
  return { t: 'ev', h, ev, exitCode: o.exitCode, signal: o.signal, error: o.error };
}

/** One tree the server runs for the client. */
export class ServedProcess {
  private handle: SubprocessHandle | null = null;
  private readonly paused = new Set<StreamName>();
  /** Resolves when the tree is gone and nothing more will be sent for it. */
  readonly finished: Promise<void>;

  constructor(
    private readonly peer: Peer,
    readonly h: number,
    runtime: SubprocessRuntime,
    wire: WireSpec,
  ) {
    let handle: SubprocessHandle;
    try {
      handle = runtime.spawn(fromWire(wire));
    } catch (error) {
      const failed = { exitCode: null, signal: null, error: toWireError(error) };
      peer.send({ t: 'ev', h, ev: 'start', pid: null });
      peer.send(outcomeEvent(h, 'exit', failed));
      peer.send(outcomeEvent(h, 'done', failed));
      this.finished = Promise.resolve();
      return;
    }
    this.handle = handle;
    peer.send({ t: 'ev', h, ev: 'start', pid: handle.pid ?? null });
    const flushed: Promise<void>[] = [];
    for (const name of ['stdout', 'stderr'] as const) {
      const disposition = wire[name];
      const id = streamId(h, STREAM[name]);
      const reader = name === 'stdout' ? handle.stdoutReader : handle.stderrReader;
      const pipe = name === 'stdout' ? handle.stdout : handle.stderr;
      if (disposition.kind === 'collect' && reader) {
        flushed.push(new ForwardedCollect(peer, h, name, id, disposition.maxBytes, reader as OutputCollector).flushed);
      } else if (pipe) this.forwardPipe(name, id, pipe); // a raw pipe never holds up `done`: a grandchild may keep it open
    }
    void handle.exit.then((o) => peer.send(outcomeEvent(h, 'exit', o)));
    this.finished = (async () => {
      const o = await handle.done;
      await Promise.all(flushed.map((f) => f.catch(() => undefined)));
      peer.send(outcomeEvent(h, 'done', o));
      await handle.waitForExit().catch(() => undefined);
    })();
  }

  /** Raw bytes for the child's stdin; acknowledged once the child's pipe took them. */
  stdin(bytes: Buffer): void {
    const sink = this.handle?.stdin;
    const ack = (): void => this.peer.send({ t: 'ev', h: this.h, ev: 'ack', bytes: bytes.length });
    if (!sink || sink.destroyed || sink.writableEnded) {
      ack();
      return;
    }
    sink.write(bytes, ack);
  }

  stdinEnd(): void {
    const sink = this.handle?.stdin;
    if (sink && !sink.writableEnded) sink.end();
  }

  /** The client's reader of a raw pipe is full (or has room again). */
  flow(stream: StreamName, pause: boolean): void {
    const pipe = stream === 'stdout' ? this.handle?.stdout : this.handle?.stderr;
    if (pause) this.paused.add(stream);
    else this.paused.delete(stream);
    if (!pipe) return;
    if (pause) pipe.pause();
    else if (!this.peer.backedUp) pipe.resume();
  }

  terminate(): Promise<void> {
    return this.handle ? this.handle.terminate() : Promise.resolve();
  }

  endTree(): Promise<number> {
    return this.handle ? this.handle.endTree() : Promise.resolve(0);
  }

  wait(): Promise<void> {
    return this.handle ? this.handle.waitForExit() : Promise.resolve();
  }

  private forwardPipe(name: StreamName, id: number, pipe: Readable): void {
    const resume = (): void => {
      if (!this.paused.has(name)) pipe.resume();
    };
    pipe.on('data', (chunk: Buffer) => {
      this.peer.sendData(id, chunk);
      if (this.peer.backedUp) {
        pipe.pause();
        this.peer.onceDrained(resume);
      }
    });
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.peer.send({ t: 'ev', h: this.h, ev: 'eof', stream: name });
    };
    pipe.once('end', end);
    pipe.once('close', end);
  }
}
