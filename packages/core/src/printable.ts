/**
 * Text that came from a program or an agent, made safe for one line a person or a terminal
 * reads: every control character (C0, DEL, C1: they could move the cursor, end the line or shape
 * a form) becomes a space.
 */

/** `text` with every control character as a space. */
export function printable(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    out += c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0) ? ' ' : ch;
  }
  return out;
}
