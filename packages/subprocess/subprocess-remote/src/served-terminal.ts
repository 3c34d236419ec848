/**
 * Server side of one terminal: output forwarded as UTF-8 (the terminal pauses while the channel
 * is backed up), input and resizes applied, foreground facts and signals answered from the
 * server's own /proc, so pids and process groups are the ones of the world the shell runs in.
 */
import type { SubprocessTerminalHandle } from '@dsh/subprocess';
import type { Peer } from './peer.js';
import { STREAM, streamId } from './wire.js';

/** One terminal the server runs for the client. */
export class ServedTerminal {
  constructor(
    peer: Peer,
    readonly h: number,
    readonly term: SubprocessTerminalHandle,
  ) {
    const id = streamId(h, STREAM.terminal);
    const out = term.output;
    out.on('data', (text: string) => {
      peer.sendData(id, Buffer.from(text, 'utf8'));
      if (peer.backedUp && !this.channelHeld) {
        this.channelHeld = true;
        this.applyFlow();
        peer.onceDrained(() => {
          this.channelHeld = false;
          this.applyFlow();
        });
      }
    });
    // The end of output comes before the exit facts, so the client has every byte when done settles.
    const ended = new Promise<void>((resolve) => {
      if (out.readableEnded) resolve();
      else out.once('end', resolve).once('close', resolve);
    });
    void term.done.then(
      async (facts) => {
        await ended;
        peer.send({ t: 'ev', h, ev: 'tdone', exitCode: facts.exitCode, signal: facts.signal });
      },
      (error: unknown) => peer.send({ t: 'ev', h, ev: 'tdone', exitCode: null, signal: null, error: String(error) }),
    );
  }

  /** The channel is backed up: output waits. */
  private channelHeld = false;
  /** The client asked to hold output (its reader is behind). */
  private clientHeld = false;

  /** The client's reader is behind (`held`) or caught up again. */
  flow(held: boolean): void {
    this.clientHeld = held;
    this.applyFlow();
  }

  private applyFlow(): void {
    if (this.channelHeld || this.clientHeld) this.term.output.pause();
    else this.term.output.resume();
  }

  write(text: string): void {
    this.term.write(text);
  }

  resize(cols: number, rows: number): void {
    try {
      this.term.resize(cols, rows);
    } catch {
      // the client validated the size; a terminal that just exited ignores it
    }
  }
}
