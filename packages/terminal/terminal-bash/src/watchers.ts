/**
 * The watchers of one session (a person's page): each is told a snapshot of the screen, then every
 * write after it, in order, through one listener. Output that arrives while a snapshot is being
 * taken is held for that watcher and appended to its snapshot, so nothing is shown twice or lost.
 */
import { DshError } from '@dsh/core';
import type { TerminalWatch, TerminalWatchEvent } from '@dsh/terminal';
import type { Screen } from './screen.js';
import { loadSerialize } from './xterm-loader.js';

interface Watcher {
  listener: (event: TerminalWatchEvent) => void;
  /** Output held while the snapshot is taken; null once it is delivered. */
  early: string[] | null;
}

function tell(watcher: Watcher, event: TerminalWatchEvent): void {
  try {
    watcher.listener(event);
  } catch {
    // a watcher's failure must not break the session
  }
}

const gone = (): DshError => new DshError('TERMINAL_NOT_FOUND', 'the terminal was closed; nothing to watch.');

/** The watchers of a session and its emulator. */
export class Watchers {
  private readonly all = new Set<Watcher>();
  private closed = false;
  /** Snapshots still waiting on the emulator: at close they give up (no race with a long-lived promise, which would keep every snapshot alive). */
  private readonly waiting = new Set<(snapshot: string | null) => void>();

  constructor(private readonly view: Screen) {}

  /** A new watcher: the screen as it stands, then every later write. @throws DshError `TERMINAL_NOT_FOUND` once closed. */
  async add(listener: (event: TerminalWatchEvent) => void): Promise<TerminalWatch> {
    if (this.closed) throw gone();
    const watcher: Watcher = { listener, early: null };
    if (!(await this.snap(watcher))) throw gone();
    const { cols, rows } = this.view.snapshot();
    return { cols, rows, close: () => this.all.delete(watcher) };
  }

  /** The screen changed size: every watcher is told a fresh snapshot at the new size. */
  redraw(): void {
    for (const watcher of this.all) {
      if (watcher.early) continue; // its snapshot is being taken: it has the new size already
      void this.snap(watcher);
    }
  }

  /** Tells `watcher` a snapshot, then the output held meanwhile; false once closed. */
  private async snap(watcher: Watcher): Promise<boolean> {
    const serialize = await loadSerialize();
    if (this.closed) return false;
    // Output fed from here on is held until the snapshot of everything fed before is taken.
    watcher.early = [];
    this.all.add(watcher);
    const snapshot = await new Promise<string | null>((resolve) => {
      this.waiting.add(resolve);
      void this.view.serializeParsed(serialize).then((text) => {
        this.waiting.delete(resolve);
        resolve(text);
      });
    });
    if (snapshot === null) return false;
    const { cols, rows } = this.view.snapshot();
    tell(watcher, { kind: 'snapshot', data: snapshot + (watcher.early ?? []).join(''), cols, rows });
    watcher.early = null;
    return true;
  }

  /** Output the session just fed to its emulator. */
  feed(chunk: string): void {
    for (const w of this.all) {
      if (w.early) w.early.push(chunk);
      else tell(w, { kind: 'output', data: chunk });
    }
  }

  /** The session is closing: no watcher is told anything more. */
  close(): void {
    this.closed = true;
    this.all.clear();
    for (const resolve of this.waiting) resolve(null);
    this.waiting.clear();
  }
}
