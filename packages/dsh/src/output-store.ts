/**
 * The composition's output directory: complete copies of long outputs (spill files, and saved
 * copies of what a model was shown only the end of) live in one private directory per
 * composition, `<root>/run-<pid>-<random>/`, which every sandbox world binds at the same path
 * — so a path named in a note works in the model's next confined command. Retained files are
 * bounded by a disk budget (oldest removed first); the directory is removed at dispose unless
 * kept; directories of dsh processes that died are swept at start.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { writeNoEditor } from '@dsh/bash-local';
import { ensurePrivateDir, makeFreshPrivateDir, type PrivateDirOptions, sweepDeadDirs } from '@dsh/core';

/** Retained output copies of one composition stay under this many bytes: the oldest go first. */
export const OUTPUT_BUDGET_BYTES = 1024 * 1024 * 1024;
/** Per-composition directories are named `run-<pid>-<random>`. */
const RUN_DIR = /^run-(\d+)-[0-9a-f]+$/;

/** Where per-composition output directories go by default. */
export function defaultOutputRoot(): string {
  return join(tmpdir(), `dsh-${userInfo().username}`);
}

/** Removes the output directories of dsh processes that are gone. */
export function sweepDeadOutput(root: string): void {
  sweepDeadDirs(root, RUN_DIR);
}

/** Where a composition's output copies live (this machine's {@link OutputStore}, or a remote one). */
export interface OutputPlace {
  readonly dir: string;
  readonly spillDir: string;
  /** The stand-in editor already made there, when the place made one. */
  readonly editor?: string;
  enforceBudget(): number;
  dispose(): void;
}

/**
 * The output directory of a remote world: made, and removed at teardown, on the remote by the
 * world (see world.ts). It is named by the remote runtime server's pid, so the next world made
 * there sweeps it when that server is gone (a lost channel left it). The disk budget is not
 * enforced there (each spill is still capped).
 */
export class RemoteOutputPlace implements OutputPlace {
  readonly dir: string;
  readonly spillDir: string;
  readonly editor: string;
  /** `root` and `serverPid` are the remote's. */
  constructor(
    readonly root: string,
    serverPid: number,
  ) {
    this.dir = join(root, `run-${serverPid}-${randomBytes(4).toString('hex')}`);
    this.spillDir = join(this.dir, 'spill');
    this.editor = join(this.dir, 'bin', 'dsh-no-editor');
  }
  enforceBudget(): number {
    return 0;
  }
  dispose(): void {
    // removed on the remote by the world at teardown
  }
}

/** What a refused output directory's message says to do. */
const OUTPUT_DIR: PrivateDirOptions = {
  what: 'The output directory',
  remedy: 'choose another with config.output.dir',
};

/** One composition's output directory. */
export class OutputStore implements OutputPlace {
  readonly dir: string;
  /** Spill files of ctx.shell. */
  readonly spillDir: string;
  /** The stand-in editor, `<dir>/bin/dsh-no-editor`, written before any world starts. */
  readonly editor: string;

  /**
   * Checks the root (made 0700 when missing; ours but wider is tightened to 0700), sweeps dead
   * run directories, then makes this composition's directory, its `spill/` and `bin/` (each
   * 0700, fresh) and the stand-in editor in `bin/`.
   * @throws DshError `UNSAFE_DIRECTORY` when the root is a symbolic link, not a directory, or
   * another user's (see {@link ensurePrivateDir}).
   */
  constructor(
    root: string,
    private readonly options: { keep: boolean; maxBytes: number },
  ) {
    ensurePrivateDir(root, OUTPUT_DIR);
    sweepDeadOutput(root);
    this.dir = join(root, `run-${process.pid}-${randomBytes(4).toString('hex')}`);
    this.spillDir = join(this.dir, 'spill');
    makeFreshPrivateDir(this.dir, OUTPUT_DIR);
    try {
      makeFreshPrivateDir(this.spillDir, OUTPUT_DIR);
      const bin = join(this.dir, 'bin');
      makeFreshPrivateDir(bin, OUTPUT_DIR);
      this.editor = writeNoEditor(bin);
    } catch (error) {
      rmSync(this.dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Removes the oldest retained files until the rest fit the budget. Returns how many it removed. */
  enforceBudget(): number {
    const files: { path: string; size: number; mtimeMs: number }[] = [];
    let total = 0;
    for (const name of readdirSafe(this.spillDir)) {
      const path = join(this.spillDir, name);
      try {
        const st = statSync(path);
        if (!st.isFile()) continue;
        files.push({ path, size: st.size, mtimeMs: st.mtimeMs });
        total += st.size;
      } catch {
        // vanished meanwhile
      }
    }
    if (total <= this.options.maxBytes) return 0;
    files.sort((a, b) => a.mtimeMs - b.mtimeMs);
    let removed = 0;
    for (const f of files) {
      if (total <= this.options.maxBytes) break;
      try {
        unlinkSync(f.path);
        removed += 1;
      } catch {
        // already gone
      }
      total -= f.size;
    }
    return removed;
  }

  private readonly callerSpill: string[] = [];

  /**
   * This composition's own directory inside a caller's `config.shell.spillDir` (made there, 0700,
   * fresh; the caller's directory is made when missing and otherwise left as it is): its spill
   * files go there and are removed with the composition, unless it keeps its output.
   * @throws DshError `UNSAFE_DIRECTORY` when the name is taken.
   */
  ownSpillIn(callerDir: string): string {
    mkdirSync(callerDir, { recursive: true, mode: 0o700 });
    const own = join(callerDir, basename(this.dir));
    makeFreshPrivateDir(own, OUTPUT_DIR);
    this.callerSpill.push(own);
    return own;
  }

  /** Removes the directory (and its own directories in a caller's spill dir), unless the composition keeps its output. */
  dispose(): void {
    if (this.options.keep) return;
    rmSync(this.dir, { recursive: true, force: true });
    for (const dir of this.callerSpill) rmSync(dir, { recursive: true, force: true });
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
