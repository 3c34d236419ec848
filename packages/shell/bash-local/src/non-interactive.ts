/**
 * One-shot commands are non-interactive by construction: stdin is at EOF, there is no terminal,
 * and the environment says so to the programs that would otherwise open an editor, a pager or a
 * credential prompt. These are managed entries: trusted `env` entries of a request override them.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the stand-in editor prints: why there is no editor, and what to do instead. */
export const NO_EDITOR_MESSAGE =
  'dsh: no editor can run in a one-shot command (there is no terminal). Pass the text instead: git commit -m "message" (or -F FILE), or write the file with a heredoc.';

/** The stand-in editor's script (also written into remote worlds). */
export const NO_EDITOR_SCRIPT = `#!/bin/sh\necho '${NO_EDITOR_MESSAGE.replace(/'/g, "'\\''")}' >&2\nexit 1\n`;

/** The file name of the stand-in editor. */
const NO_EDITOR = 'dsh-no-editor';

/**
 * Writes the stand-in editor into `binDir` (once) and returns its path; `false` when it cannot
 * be written (the editor then still fails at once, without the message).
 */
export function noEditorCommand(binDir: string): string {
  const path = join(binDir, NO_EDITOR);
  if (existsSync(path)) return path;
  try {
    mkdirSync(binDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, NO_EDITOR_SCRIPT, { mode: 0o700 });
    chmodSync(path, 0o700);
    return path;
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
  };
}
