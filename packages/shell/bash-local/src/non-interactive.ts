/**
 * One-shot commands are non-interactive by construction: stdin is at EOF, there is no terminal,
 * and the environment says so to the programs that would otherwise open an editor, a pager or a
 * credential prompt. These are managed entries: trusted `env` entries of a request override them.
 */
import {
  closeSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { localeEntries } from '@dsh/subprocess';

/** What the stand-in editor prints: why there is no editor, and what to do instead. */
export const NO_EDITOR_MESSAGE =
  'dsh: no editor can run in a one-shot command (there is no terminal). Pass the text instead: git commit -m "message" (or -F FILE), or write the file with a heredoc.';

/** The stand-in editor's script (also written into remote worlds). */
export const NO_EDITOR_SCRIPT = `#!/bin/sh\necho '${NO_EDITOR_MESSAGE.replace(/'/g, "'\\''")}' >&2\nexit 1\n`;

/** The file name of the stand-in editor. */
const NO_EDITOR = 'dsh-no-editor';

const ownUid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/** True when `st` is ours (this user's) and nobody else may write it. */
function ours(st: Stats): boolean {
  const me = ownUid();
  return (me === null || st.uid === me) && (st.mode & 0o022) === 0;
}

/** True when `path` is the stand-in editor as this process writes it: a regular file of ours, 0700, with exactly the script. */
function isOurEditor(path: string): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || !ours(st) || (st.mode & 0o777) !== 0o700) return false;
    return readFileSync(path, 'utf8') === NO_EDITOR_SCRIPT;
  } catch {
    return false;
  }
}

/**
 * Writes the stand-in editor into `binDir` (made 0700 when missing) and returns its path. A file
 * already there is reused only when it is a regular file (not a symlink) of this user, 0700, with
 * exactly {@link NO_EDITOR_SCRIPT}; anything else is removed and the editor written anew
 * (exclusively, so nothing swapped in meanwhile is written through).
 * @throws when `binDir` is not a directory of this user closed to others' writes, or the file cannot be written.
 */
export function writeNoEditor(binDir: string): string {
  const path = join(binDir, NO_EDITOR);
  mkdirSync(binDir, { recursive: true, mode: 0o700 });
  const dir = lstatSync(binDir);
  if (!dir.isDirectory() || !ours(dir)) {
    throw new Error(
      `${binDir} is not a directory of this user closed to others; the stand-in editor is not written there`,
    );
  }
  if (isOurEditor(path)) return path;
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const fd = openSync(path, 'wx', 0o700);
  try {
    writeSync(fd, NO_EDITOR_SCRIPT);
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * {@link writeNoEditor}, or `false` when the editor cannot be written there (the editor then
 * still fails at once, without the message).
 */
export function noEditorCommand(binDir: string): string {
  try {
    return writeNoEditor(binDir);
  } catch {
    return 'false';
  }
}

/** The managed environment of a one-shot command. */
export function nonInteractiveEnv(editor: string): Record<string, string> {
  return {
    GIT_EDITOR: editor,
    EDITOR: editor,
    VISUAL: editor,
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    ...localeEntries(),
  };
}
