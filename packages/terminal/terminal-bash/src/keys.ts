/**
 * Key names as the bytes a terminal sends for them, in the terminal's current mode: cursor keys
 * and Home/End are `ESC O x` when the program asked for application cursor keys (DECCKM, as vim
 * and less do), `ESC [ x` otherwise.
 */

const FIXED: Record<string, string> = {
  Enter: '\r',
  Escape: '\x1b',
  Tab: '\t',
  Backspace: '\x7f',
  Space: ' ',
  Delete: '\x1b[3~',
  Insert: '\x1b[2~',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
  F1: '\x1bOP',
  F2: '\x1bOQ',
  F3: '\x1bOR',
  F4: '\x1bOS',
  F5: '\x1b[15~',
  F6: '\x1b[17~',
  F7: '\x1b[18~',
  F8: '\x1b[19~',
  F9: '\x1b[20~',
  F10: '\x1b[21~',
  F11: '\x1b[23~',
  F12: '\x1b[24~',
};

/** Final bytes of the keys whose prefix depends on the cursor-key mode. */
const CURSOR: Record<string, string> = { Up: 'A', Down: 'B', Right: 'C', Left: 'D', Home: 'H', End: 'F' };

/** The bytes of one (already validated) key name. */
export function keyBytes(name: string, applicationCursor: boolean): string {
  const fixed = FIXED[name];
  if (fixed !== undefined) return fixed;
  const final = CURSOR[name];
  if (final !== undefined) return `${applicationCursor ? '\x1bO' : '\x1b['}${final}`;
  if (/^C-[a-z]$/.test(name)) return String.fromCharCode(name.charCodeAt(2) - 96);
  return name; // one printable character (validated by the service) is typed as it is
}
