/**
 * When a language server's answer can be trusted: it is not in the middle of work it announced
 * (`$/progress` begin … end, e.g. loading the project), and a file's diagnostics have stopped
 * changing. typescript-language-server first publishes an empty list for a file and the real one
 * a moment later; answering from the first publication says "No diagnostics." for a file with
 * errors. So a file's diagnostics are settled once no announced work is running and none has been
 * published for {@link DIAGNOSTICS_QUIET_MS}.
 */

/** A file's diagnostics are settled once this long passed since its last publication (the empty-then-real gap is about 150 ms). */
export const DIAGNOSTICS_QUIET_MS = 400;
/**
 * After a change to any open file, another file's diagnostics published before it stand only
 * once the server republished them, or this long passed with no republication (an edit to B
 * changes A's errors when A imports B; servers republish open files after a change).
 */
export const DIAGNOSTICS_UNCHANGED_MS = 1_500;
/** How often a wait re-checks while nothing happens (quiet windows end without an event). */
const RECHECK_MS = 50;

/** The server's announced work and its publications. */
export class ServerActivity {
  private readonly active = new Set<string | number>();
  private readonly lastPublish = new Map<string, number>();
  private readonly pokes = new Set<() => void>();

  /** A `$/progress` notification. */
  progress(token: string | number, kind: unknown): void {
    if (kind === 'begin') this.active.add(token);
    else if (kind === 'end') this.active.delete(token);
    this.poke();
  }

  /** A publication of `uri`'s diagnostics. */
  published(uri: string): void {
    this.lastPublish.set(uri, Date.now());
    this.poke();
  }

  /** Work the server announced is running. */
  get busy(): boolean {
    return this.active.size > 0;
  }

  private lastChange = 0;

  /** The client sent a file's text (open or change): every open file's diagnostics may change. */
  changed(): void {
    this.lastChange = Date.now();
  }

  /**
   * Whether `uri`'s diagnostics can stand after the last change: published since, or nothing came
   * for {@link DIAGNOSTICS_UNCHANGED_MS} after it (the change did not touch this file).
   */
  current(uri: string): boolean {
    const at = this.lastPublish.get(uri) ?? 0;
    return at >= this.lastChange || Date.now() - this.lastChange >= DIAGNOSTICS_UNCHANGED_MS;
  }

  /** Milliseconds since `uri`'s last publication (Infinity when none). */
  quietFor(uri: string): number {
    const at = this.lastPublish.get(uri);
    return at === undefined ? Number.POSITIVE_INFINITY : Date.now() - at;
  }

  /** Wakes every waiter (an event, or the server's end). */
  poke(): void {
    for (const wake of [...this.pokes]) wake();
  }

  /** Resolves true once `check()` holds (checked on every event and every {@link RECHECK_MS}), false after `ms`. */
  until(check: () => boolean, ms: number): Promise<boolean> {
    if (check()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const deadline = Date.now() + ms;
      const step = (): void => {
        if (check()) done(true);
        else if (Date.now() >= deadline) done(false);
      };
      const timer = setInterval(step, RECHECK_MS);
      const done = (held: boolean): void => {
        clearInterval(timer);
        this.pokes.delete(step);
        resolve(held);
      };
      this.pokes.add(step);
    });
  }
}
