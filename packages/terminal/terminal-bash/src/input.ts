/**
 * What a send writes: the text, then — when keys are named — those keys (and no Enter of its
 * own), else Enter unless `submit` is false. Input for the shell's own prompt goes as one
 * bracketed paste: several lines wrapped in one brace group, so they run as one command with one
 * prompt after them, and an interrupt abandons the lines that had not run yet. A program's input
 * is typed as it is, except that several lines for a program that turned bracketed paste on go
 * as one paste (its auto-indent then leaves them alone); a trailing newline of a program's input
 * is kept (it is an Enter: an empty line that closes a block).
 */
import { keyBytes } from './keys.js';
import { leavesOpen } from './open-lines.js';

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** The bytes of a send, and whether they are a command for the shell's prompt. */
export function sendPayload(
  input: { text: string; submit: boolean; keys: readonly string[]; paste?: boolean },
  options: { toShell: boolean; applicationCursor: boolean; bracketedPaste?: boolean },
): { payload: string; command: boolean } {
  const text = input.text.replace(/\r\n?/g, '\n');
  const keys = input.keys.map((k) => keyBytes(k, options.applicationCursor)).join('');
  const enter = input.keys.length === 0 && input.submit ? '\r' : '';
  if (options.toShell && input.submit && text.trim() !== '' && input.keys.length === 0) {
    const lines = text.replace(/\n$/, '');
    // Several lines become one brace group: one command, so an interrupt abandons the lines not yet
    // run; not when they leave something open (the shell then asks for the rest).
    const command = lines.includes('\n') && !leavesOpen(lines) ? `{ ${lines}\n}` : lines;
    return { payload: `${PASTE_START}${command}${PASTE_END}\r`, command: true };
  }
  if (!options.toShell && options.bracketedPaste && (input.paste ?? true) && text.replace(/\n$/, '').includes('\n')) {
    // The paste holds the lines; a trailing newline stays outside it as the Enter it is.
    const body = text.replace(/\n$/, '');
    const after = text.endsWith('\n') ? '\r' : '';
    return { payload: `${PASTE_START}${body.replace(/\n/g, '\r')}${PASTE_END}${after}${keys}${enter}`, command: false };
  }
  return { payload: `${text.replace(/\n/g, '\r')}${keys}${enter}`, command: false };
}
