/**
 * Server side of a collected stream: the server's own collector keeps the tail and writes the
 * spill file (so the complete copy lives where the commands run); every chunk is sent to the
 * client's mirror. When the channel is backed up the child keeps running at full speed: unsent
 * bytes wait in a queue that never holds more than the tail, and what fell out of it is sent
 * as a gap (`skip`), so the mirror's counts stay exact and its tail stays the real one.
 */
import type { OutputCollector } from '@dsh/subprocess';
import type { Peer } from './peer.js';
import type { StreamName } from './wire.js';

/** Forwards one collected stream of handle `h` to the client. */
export class ForwardedCollect {
  private queue: Buffer[] = [];
  private queued = 0;
  private gap = 0;
  private finished: boolean | null = null; // cutOff once finished
  private waitingDrain = false;
  private resolveFlushed!: () => void;
  /** Resolves once everything up to the finish reached the channel. */
  readonly flushed = new Promise<void>((r) => {
    this.resolveFlushed = r;
  });

  constructor(
    private readonly peer: Peer,
    private readonly h: number,
    private readonly stream: StreamName,
    private readonly dataId: number,
    private readonly maxBytes: number,
    collector: OutputCollector,
  ) {
    collector.observe({
      chunk: (bytes) => this.chunk(bytes),
      spill: (path, error) => this.peer.send({ t: 'ev', h, ev: 'spill', stream, path, error }),
      finish: (cutOff) => {
        this.finished = cutOff;
        this.pump();
      },
    });
    // A start failure finishes the collector inside spawn(), before anyone could observe it.
    if (collector.settled) {
      this.finished = collector.cutOff;
      this.pump();
    }
  }

  private chunk(bytes: Buffer): void {
    if (!this.peer.backedUp && this.queued === 0 && this.gap === 0) {
      this.peer.sendData(this.dataId, bytes);
      return;
    }
    this.queue.push(bytes);
    this.queued += bytes.length;
    // Only the tail can ever be read from the mirror: older queued bytes become a gap.
    while (this.queued - (this.queue[0]?.length ?? 0) >= this.maxBytes && this.queue.length > 1) {
      const old = this.queue.shift() as Buffer;
      this.queued -= old.length;
      this.gap += old.length;
    }
    this.pump();
  }

  /** Sends what waits, as the channel allows; then the finish. */
  private pump(): void {
    if (this.peer.closed) {
      this.resolveFlushed();
      return;
    }
    if (this.peer.backedUp && (this.queued > 0 || this.gap > 0 || this.finished !== null)) {
      if (!this.waitingDrain) {
        this.waitingDrain = true;
        this.peer.onceDrained(() => {
          this.waitingDrain = false;
          this.pump();
        });
      }
      return;
    }
    if (this.gap > 0) {
      this.peer.send({ t: 'ev', h: this.h, ev: 'skip', stream: this.stream, bytes: this.gap });
      this.gap = 0;
    }
    for (const bytes of this.queue) this.peer.sendData(this.dataId, bytes);
    this.queue = [];
    this.queued = 0;
    if (this.finished !== null) {
      this.peer.send({ t: 'ev', h: this.h, ev: 'finish', stream: this.stream, cutOff: this.finished });
      this.finished = null;
      this.resolveFlushed();
    }
  }
}
