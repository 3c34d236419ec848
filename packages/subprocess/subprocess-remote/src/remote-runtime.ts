/**
 * `RemoteSubprocessRuntime`: the whole `ctx.subprocess` contract (DESIGN §3) over a channel to
 * a runtime server. Upper layers cannot tell it from a local runtime: specs are validated here,
 * synchronously, with the same rules; start failures land in `done`; collected output is read
 * synchronously from mirrors; terminals carry foreground facts from the far side. A lost channel
 * settles every handle with `WORLD_DISCONNECTED`.
 */
import type { Readable, Writable } from 'node:stream';
import { DshError } from '@dsh/core';
import {
  type SpawnSpec,
  type SubprocessHandle,
  SubprocessRuntime,
  type SubprocessTerminalHandle,
  type TerminalSpawnSpec,
  validateSpawnSpec,
  validateTerminalSpawnSpec,
} from '@dsh/subprocess';
import { RuntimeClient } from './client.js';
import { RemoteSubprocessHandle } from './remote-handle.js';
import { RemoteTerminalHandle } from './remote-terminal.js';
import type { ServerInfo } from './server.js';
import { terminalToWire } from './wire.js';

/** The two ends of a channel, and how to release whatever carries it. */
export interface Channel {
  /** Frames from the server (its stdout). */
  input: Readable;
  /** Frames to the server (its stdin). */
  output: Writable;
  /** Releases the transport after the channel closed (e.g. ends the ssh process). @default nothing */
  release?(): Promise<void>;
  /** Why the channel ended, for the loss error (e.g. the transport's exit and stderr). @default none */
  reason?(): Promise<string>;
  /**
   * Whether the far side sees this machine's files at the same paths (a sandbox world does;
   * another machine does not). @default true
   */
  sharesFilesystem?: boolean;
}

/** ctx.subprocess in another world. */
export class RemoteSubprocessRuntime extends SubprocessRuntime {
  private readonly client: RuntimeClient;
  private readonly handles = new Set<RemoteSubprocessHandle>();
  private readonly terminals = new Set<RemoteTerminalHandle>();
  private disposing: Promise<void> | undefined;

  constructor(private readonly channel: Channel) {
    super();
    if (!channel?.input || !channel.output) {
      throw new DshError('INVALID_ARGUMENT', 'RemoteSubprocessRuntime needs a channel { input, output }.');
    }
    this.client = new RuntimeClient(channel.input, channel.output, channel.reason);
  }

  /** The server's self-description, once it answered (rejects with `WORLD_DISCONNECTED` if it never does). */
  get ready(): Promise<ServerInfo> {
    return this.client.ready;
  }

  /** Resolves with the loss error when the channel ends other than by `dispose()`. */
  get lost(): Promise<DshError> {
    return this.client.lost;
  }

  /** False when the world is another machine: paths there are not this machine's. */
  override get sharesFilesystem(): boolean {
    return this.channel.sharesFilesystem !== false;
  }

  /** True once the channel is gone. */
  get disconnected(): boolean {
    return this.client.lostError !== null;
  }

  /** Trees and terminals this runtime still tracks (started and not yet seen gone). */
  get trackedCount(): number {
    return this.handles.size + this.terminals.size;
  }

  /** @throws DshError the server's lookup failure, or `WORLD_DISCONNECTED` (rejections). */
  async resolveExecutable(program: string, env: SpawnSpec['env']): Promise<string> {
    if (typeof program !== 'string' || program === '') {
      throw new DshError('INVALID_SPEC', 'program must be a non-empty string.', { data: { field: 'program' } });
    }
    const wireEnv = Object.entries(env ?? {}).map(([k, v]) => [k, v === undefined ? null : v]);
    return String(await this.client.request('resolve', { program, env: wireEnv }));
  }

  /** @throws DshError `INVALID_SPEC`, `RELATIVE_EXECUTABLE` (synchronously), `DISPOSED` after dispose(). */
  spawn(spec: SpawnSpec): SubprocessHandle {
    validateSpawnSpec(spec);
    if (this.disposing) throw new DshError('DISPOSED', 'this subprocess runtime has been disposed; create a new one.');
    const handle = new RemoteSubprocessHandle(this.client, spec);
    this.handles.add(handle);
    void handle.done.then((outcome) => {
      // A start failure has no tree: forget it at once, as a local runtime does.
      if (outcome.error) this.handles.delete(handle);
      else void handle.waitForExit().finally(() => this.handles.delete(handle));
    });
    return handle;
  }

  /**
   * @throws DshError `INVALID_SPEC`, `RELATIVE_EXECUTABLE` (synchronously); as rejections the far
   *   side's start error (`CWD_NOT_FOUND`, `PTY_UNAVAILABLE`, …), `ABORTED`, `DISPOSED`, `WORLD_DISCONNECTED`.
   */
  spawnTerminal(spec: TerminalSpawnSpec): Promise<SubprocessTerminalHandle> {
    validateTerminalSpawnSpec(spec);
    return this.startTerminal(spec);
  }

  private async startTerminal(spec: TerminalSpawnSpec): Promise<SubprocessTerminalHandle> {
    if (spec.signal?.aborted) throw new DshError('ABORTED', 'terminal allocation was aborted.');
    if (this.disposing) throw new DshError('DISPOSED', 'this subprocess runtime has been disposed; create a new one.');
    let term: RemoteTerminalHandle | null = null;
    const early: { data: [number, Buffer][]; events: import('./frames.js').Message[] } = { data: [], events: [] };
    const h = this.client.register({
      data: (s, bytes) => (term ? term.onData(s, bytes) : early.data.push([s, bytes])),
      event: (m) => (term ? term.onEvent(m) : early.events.push(m)),
      lost: (e) => term?.onLost(e),
    });
    let started: { pid: number };
    try {
      started = (await this.client.request('pty', { h, spec: terminalToWire(spec) })) as { pid: number };
    } catch (error) {
      this.client.unregister(h);
      throw error;
    }
    const made = new RemoteTerminalHandle(this.client, h, started.pid);
    term = made;
    for (const [s, bytes] of early.data) made.onData(s, bytes);
    for (const m of early.events) made.onEvent(m);
    if (this.client.lostError) made.onLost(this.client.lostError);
    this.terminals.add(made);
    void made.done
      .catch(() => undefined)
      .finally(() => {
        this.terminals.delete(made);
        this.client.unregister(h);
      });
    if (spec.signal?.aborted) {
      // The allocation finished after the abort: the caller will never own it.
      await made.terminate();
      throw new DshError('ABORTED', 'terminal allocation was aborted.');
    }
    return made;
  }

  /** Terminates every tree and terminal of this runtime, then closes the channel. Idempotent. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      await Promise.all([...this.handles].map((h) => h.terminate()));
      await Promise.all([...this.terminals].map((t) => t.terminate()));
      await this.client.request('dispose').catch(() => undefined);
      this.client.close();
      await this.channel.release?.();
    })();
    return this.disposing;
  }
}
