/**
 * One argv word as a POSIX shell reads it back unchanged: as it is when plainly safe, else in
 * single quotes (each `'` written as `'\''`). For channels that join argv into one shell string
 * (ssh) and for commands given to `bash -c` as words.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
