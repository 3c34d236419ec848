/**
 * What a send writes: the text, then — when keys are named — those keys (and no Enter of its
 * own), else Enter unless `submit` is false. Input for the shell's own prompt goes as one
 * bracketed paste: several lines wrapped in one brace group, so they run as one command with one
 * prompt after them, and an interrupt abandons the lines that had not run yet. Everything else —
 * a program's input, text without Enter, named keys — is typed as it is.
 */
import { keyBytes } from './keys.js';

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** The bytes of a send, and whether they are a command for the shell's prompt. */
export function sendPayload(
  input: { text: string; submit: boolean; keys: readonly string[] },
  options: { toShell: boolean; applicationCursor: boolean },
): { payload: string; command: boolean } {
  const lines = input.text.replace(/\r\n?/g, '\n').replace(/\n$/, '');
  const keys = input.keys.map((k) => keyBytes(k, options.applicationCursor)).join('');
  if (options.toShell && input.submit && lines.trim() !== '' && input.keys.length === 0) {
    // Several lines become one brace group: one command, so an interrupt abandons the lines not yet run.
    const command = lines.includes('\n') ? `{ ${lines}\n}` : lines;
    return { payload: `${PASTE_START}${command}${PASTE_END}\r`, command: true };
  }
  const typed = lines.replace(/\n/g, '\r');
  const enter = input.keys.length === 0 && input.submit ? '\r' : '';
  return { payload: `${typed}${keys}${enter}`, command: false };
}
