/**
 * Prompts of well-known programs that wait for one key before they go on, as the screen shows
 * them: a model told the key need not guess (vim at its hit-enter prompt eats whatever is typed
 * next, a command line included).
 */

/** One known prompt: how its last non-blank screen line reads, and the keys that continue past it. */
interface KnownPrompt {
  line: RegExp;
  prompt: string;
  keys: string[];
  /** Only while a program whose command line matches this holds the terminal. */
  program?: RegExp;
}

/** The prompts recognised, first match wins. */
const KNOWN_PROMPTS: readonly KnownPrompt[] = [
  { line: /Press ENTER or type command to continue\s*$/, prompt: "vim's hit-enter prompt", keys: ['Enter'] },
  { line: /^\(END\)\s*$/, prompt: "the pager's end of the text", keys: ['q'] },
  { line: /^--More--/, prompt: "the pager's More prompt", keys: ['Space'] },
  { line: /^-- More --/, prompt: "the pager's More prompt", keys: ['Space'] },
  // A block typed without its closing empty line: the next input would be read as part of it.
  {
    line: /^\.\.\. ?$/,
    prompt: "the Python REPL's continuation prompt (a block is still open)",
    keys: ['Enter'],
    program: /(?:^|\/)python[\d.]*(?:\s|$)/,
  },
];

/**
 * The known prompt `screen` ends with while `program` holds the terminal, or null (none known,
 * or the shell's prompt has the terminal).
 */
export function knownPrompt(screen: string, program: string | null): { prompt: string; keys: string[] } | null {
  if (program === null) return null;
  const lines = screen.split('\n').filter((l) => l.trim() !== '');
  const last = lines[lines.length - 1] ?? '';
  const hit = KNOWN_PROMPTS.find((p) => p.line.test(last) && (p.program === undefined || p.program.test(program)));
  return hit ? { prompt: hit.prompt, keys: hit.keys } : null;
}
