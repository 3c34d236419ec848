/**
 * A remote world that comes back (issue 25, 2): `ctx.subprocess` over a channel that is remade
 * when it is lost. The loss is noticed at once; the world is connected again in the background
 * (bounded tries with backoff), and until then calls fail as they did, with WORLD_DISCONNECTED.
 * A call after it runs in the fresh world; `generation` counts the worlds, so the tools can tell
 * each agent once that its jobs, terminals and background processes of the lost world are gone.
 * A call made after the tries gave up starts another round.
 */
import { DshError } from '@dsh/core';
import {
  type SpawnSpec,
  type SubprocessHandle,
  SubprocessRuntime,
  type SubprocessTerminalHandle,
  type TerminalSpawnSpec,
} from '@dsh/subprocess';
import type { RemoteSubprocessRuntime } from '@dsh/subprocess-remote';

/** Tries to connect again after a loss, per round. */
export const RECONNECT_TRIES = 5;
/** The wait before the first try; each next one waits twice as long, up to {@link RECONNECT_MAX_DELAY_MS}. */
export const RECONNECT_FIRST_DELAY_MS = 200;
/** The longest wait between two tries. */
export const RECONNECT_MAX_DELAY_MS = 8_000;

/** What was lost, for the note of the first call in the new world. */
export interface WorldLoss {
  /** The channel's end, as the channel told it. */
  cause: string;
  /** Trees and terminals that were running there when it was lost. */
  running: number;
}

/** ctx.subprocess of a remote world that is remade after a loss. */
export class ReconnectingRuntime extends SubprocessRuntime {
  private current: RemoteSubprocessRuntime;
  private round: Promise<void> | null = null;
  private disposed = false;
  /** 1 for the first world, and one more for each world made after a loss. */
  generation = 1;
  /** What the last loss took (null before any). */
  lastLoss: WorldLoss | null = null;
  /** Why the last try to connect again failed (null when the last round succeeded). */
  lastFailure: string | null = null;

  constructor(
    first: RemoteSubprocessRuntime,
    private readonly remake: () => Promise<RemoteSubprocessRuntime>,
  ) {
    super();
    this.current = first;
    this.watch(first);
  }

  /** The runtime of the world in use now. */
  get runtime(): RemoteSubprocessRuntime {
    return this.current;
  }

  /** The current world's server description (`execPath`, …), once it answered. */
  get ready(): Promise<unknown> {
    return this.current.ready;
  }

  get disconnected(): boolean {
    return this.current.disconnected;
  }

  get trackedCount(): number {
    return this.current.trackedCount;
  }

  override get sharesFilesystem(): boolean {
    return this.current.sharesFilesystem;
  }

  private watch(runtime: RemoteSubprocessRuntime): void {
    const running = (): number => runtime.trackedCount;
    void runtime.lost.then((error) => {
      if (this.disposed || runtime !== this.current) return;
      this.lastLoss = { cause: error.message, running: running() };
      this.again();
    });
  }

  /** Starts a round of tries unless one is going on. */
  private again(): void {
    this.round ??= this.tries().finally(() => {
      this.round = null;
    });
  }

  private async tries(): Promise<void> {
    let delay = RECONNECT_FIRST_DELAY_MS;
    for (let i = 0; i < RECONNECT_TRIES && !this.disposed; i++) {
      await new Promise((r) => setTimeout(r, delay));
      if (this.disposed) return;
      try {
        const next = await this.remake();
        if (this.disposed) {
          await next.dispose();
          return;
        }
        const old = this.current;
        this.current = next;
        this.generation++;
        this.lastFailure = null;
        this.watch(next);
        void old.dispose().catch(() => undefined);
        return;
      } catch (error) {
        this.lastFailure = error instanceof Error ? error.message : String(error);
        delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS);
      }
    }
  }

  /** A call while the world is lost: it fails as before (WORLD_DISCONNECTED), and starts a round when none is going on. */
  private use(): RemoteSubprocessRuntime {
    if (this.disposed) throw new DshError('DISPOSED', 'the remote world has been disposed.');
    if (this.current.disconnected) this.again();
    return this.current;
  }

  resolveExecutable(program: string, env: SpawnSpec['env']): Promise<string> {
    return this.use().resolveExecutable(program, env);
  }

  spawn(spec: SpawnSpec): SubprocessHandle {
    return this.use().spawn(spec);
  }

  spawnTerminal(spec: TerminalSpawnSpec): Promise<SubprocessTerminalHandle> {
    return this.use().spawnTerminal(spec);
  }

  async dispose(): Promise<void> {
    this.disposed = true; // a round going on ends at its next step (a world it makes then is ended)
    await this.current.dispose();
  }
}
