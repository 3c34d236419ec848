/**
 * Positions as a model gives and reads them (1-based line, 1-based column counted in characters,
 * i.e. Unicode code points) and as LSP has them (0-based line, UTF-16 code units): "😀" is one
 * column here and two units there. A position past the file's end, or past its line's end, is an
 * error that says the file's size, never clamped in silence.
 */
import { DshError } from '@dsh/core';

/** The text of line `line0` (0-based), or null past the end. */
function lineOf(text: string, line0: number): string | null {
  const lines = text.split('\n');
  if (line0 < 0 || line0 >= lines.length) return null;
  return (lines[line0] as string).replace(/\r$/, '');
}

/**
 * The LSP position of (`line`, `column`) in `text`.
 * @throws DshError `LSP_POSITION_OUT_OF_RANGE` past the last line or the line's end (+1).
 */
export function toLspPosition(
  text: string,
  path: string,
  line: number,
  column: number,
): { line: number; character: number } {
  const lines = text.split('\n').length;
  const content = lineOf(text, line - 1);
  if (content === null) {
    throw new DshError(
      'LSP_POSITION_OUT_OF_RANGE',
      `line ${line} is past the end of ${path}, which has ${lines} lines.`,
      {
        data: { line, lines },
      },
    );
  }
  const chars = [...content];
  if (column > chars.length + 1) {
    throw new DshError(
      'LSP_POSITION_OUT_OF_RANGE',
      `column ${column} is past the end of line ${line} of ${path}, which has ${chars.length} characters.`,
      { data: { line, column, length: chars.length } },
    );
  }
  return { line: line - 1, character: chars.slice(0, column - 1).join('').length };
}

/** The 1-based character column of LSP position (`line0`, `character`) in `text` (UTF-16 + 1 when the line is unknown). */
export function toColumn(text: string | null, line0: number, character: number): number {
  const content = text === null ? null : lineOf(text, line0);
  if (content === null) return character + 1;
  return [...content.slice(0, character)].length + 1;
}
