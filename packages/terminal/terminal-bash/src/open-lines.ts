/**
 * Whether lines for the shell's prompt leave something open: a quote, a bracket or brace, a
 * compound command (`if`…`fi`, `do`…`done`, `case`…`esac`), a here-document or a trailing
 * backslash. Such lines are not wrapped in a brace group (the group's closing brace would close
 * theirs, and the shell would then wait on the group's own): the shell asks for the rest, and the
 * next send gives it. A rough reading of bash's grammar, never a parser; it errs on "open" only
 * for unusual text (a keyword used as an argument), and then the lines go unwrapped.
 */

/** Words that open a compound command, and the word that closes each. */
const OPENERS: Readonly<Record<string, string>> = { if: 'fi', case: 'esac', do: 'done', '{': '}' };
const CLOSERS = new Set(Object.values(OPENERS));

/** Whether `lines` (several, for the shell's prompt) leave a construct open. */
export function leavesOpen(lines: string): boolean {
  if (/\\$/.test(lines) || /(?:^|[^<])<<-?\s*['"]?\w/.test(lines)) return true; // a continuation, a here-document
  let quote: "'" | '"' | null = null;
  let parens = 0;
  const words: string[] = [];
  let word = '';
  const end = (): void => {
    if (word !== '') words.push(word);
    word = '';
  };
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = null;
    } else if (c === '\\') {
      i++;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && word === '') {
      while (i < lines.length && lines[i] !== '\n') i++; // a comment to the line's end
      end();
    } else if (c === '(') {
      parens++;
      end();
    } else if (c === ')') {
      parens--;
      end();
    } else if (/[\s;&|]/.test(c)) {
      end();
    } else {
      word += c;
    }
  }
  end();
  if (quote !== null || parens > 0) return true;
  const open: string[] = [];
  for (const w of words) {
    const closer = OPENERS[w];
    if (closer) open.push(closer);
    else if (CLOSERS.has(w) && open[open.length - 1] === w) open.pop();
  }
  return open.length > 0;
}
