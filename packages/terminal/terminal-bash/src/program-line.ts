/**
 * Whose exit code a prompt marker carries when a program held the terminal: the marker tells the
 * status of the whole command line, which is its last command's. When that is not the program
 * (`python3; echo after=$?`, `whiptail …; echo rc=$?`, `git commit` running vim), the code is
 * the line's, and the result says so instead of pinning it on the program.
 */

/** The words of a command line's last command (quotes and escapes undone; `;`, `&`, `|` and line ends separate). */
function lastCommandWords(line: string): string[] {
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  const end = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === ';' || c === '&' || c === '|' || c === '\n') {
      end();
      if (words.length > 0) words = [];
    } else if (c === ' ' || c === '\t') {
      end();
    } else {
      word += c;
      inWord = true;
    }
  }
  end();
  return words;
}

const basename = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/**
 * Whether `program` (the foreground command, as its arguments read: `python3`, `/usr/bin/vim
 * notes.txt`) is the last command of `line`, so the line's status is the program's. False when
 * the line is not known.
 */
export function endsWithProgram(line: string | null, program: string): boolean {
  if (line === null) return false;
  const words = lastCommandWords(line).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)); // leading VAR=value
  const first = words.find((w) => !['exec', 'command', 'time', 'nohup', 'env'].includes(w));
  const name = program.trim().split(/\s+/)[0];
  return first !== undefined && name !== undefined && basename(first) === basename(name);
}
