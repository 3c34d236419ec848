/**
 * The private start-up file of a persistent bash: a prompt marker (OSC 133;D) that carries the
 * last exit code, this session's nonce and a sequence number. The nonce and the hook are shell
 * variables, never exported, so programs run in the session do not inherit them.
 */
import { randomBytes } from 'node:crypto';
import { DshError } from '@dsh/core';
import { type SubprocessRuntime, smallSpec } from '@dsh/subprocess';

/** What follows ESC in {@link REDRAW_KEY}: a CSI sequence no terminal sends for a key. */
const REDRAW_KEY_BODY = '[99999~';
/**
 * The key the rc binds to readline's redraw-current-line. A send types it first when something
 * was printed at the prompt after readline began to read (a job's "Done"): readline would
 * otherwise draw the line where it believes the cursor is (the garbled `trtrue`).
 */
export const REDRAW_KEY = `\x1b${REDRAW_KEY_BODY}`;

/** The prompt (PS1), without its trailing blank. */
export const PROMPT_TEXT = '$';

/** A per-session secret that only the shell's own prompt hook prints. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The rc text for a session with this nonce. */
export function rcText(nonce: string): string {
  return [
    'unset HISTFILE',
    'set +H', // no history expansion: a "!" in a command means "!", as in a script
    'set -b', // a job's end is told when it ends (between sends too), not at the prompt after the next command
    "bind 'set enable-bracketed-paste on' 2>/dev/null", // input arrives as one paste; ?2004l marks its acceptance
    // A key no keyboard sends that redraws the prompt's line where the cursor is: a job's end told
    // (set -b) while readline reads moves the cursor under readline's feet (see REDRAW_KEY).
    `bind '"\\e${REDRAW_KEY_BODY}": redraw-current-line' 2>/dev/null`,
    `bind -m vi-insert '"\\e${REDRAW_KEY_BODY}": redraw-current-line' 2>/dev/null`,
    `PS1='${PROMPT_TEXT} '`,
    `PS2='\\[\\e]133;S;${nonce}\\a\\]'`, // invisible; tells that the shell waits for the rest of a command
    `__dsh_nonce='${nonce}'`,
    '__dsh_seq=0',
    // The prompt starts a row of its own, as zsh's and fish's do: readline draws the line as if
    // the prompt began at column 0, so after output with no final newline (`printf abc`), or a
    // killed program's cut escape sequence that swallowed bash's line break, its redraws
    // overwrote the row and the next send's echo came out garbled. A full row of blanks wraps
    // only from a column past 0; CR and an erase (which also ends the wrap) leave a clean row.
    `__dsh_fresh_line() { [[ $COLUMNS ]] && printf '%*s\\r\\033[K' "$COLUMNS" ''; }`,
    '__dsh_prompt() { local e=$?; __dsh_seq=$((__dsh_seq+1)); printf \'\\033]133;D;%s;%s;%s;%s\\007\' "$e" "$__dsh_nonce" "$__dsh_seq" "$$"; __dsh_fresh_line; return $e; }',
    'PROMPT_COMMAND=__dsh_prompt',
    '',
  ].join('\n');
}

/**
 * Writes the rc file through `runtime`, in the world the shell will run in (this machine, a
 * sandbox world, a remote one), into a fresh private directory under that world's temp dir;
 * `remove` deletes both (best effort; it resolves once the removal ran).
 * @throws DshError `TERMINAL_START_FAILED` (rejection) when it cannot be written there.
 */
export async function writeRcFile(
  runtime: SubprocessRuntime,
  nonce: string,
): Promise<{ path: string; remove(): Promise<void> }> {
  const h = runtime.spawn(smallSpec(['sh', '-c', RC_WRITER], { maxBytes: RC_WRITER_OUTPUT_BYTES, stdin: 'pipe' }));
  h.stdin?.on('error', () => undefined); // a writer that failed is told by its exit
  h.stdin?.end(rcText(nonce));
  const outcome = await h.done;
  const dir = h.stdoutReader?.read(0).text ?? '';
  if (outcome.exitCode !== 0 || !dir.startsWith('/')) {
    const why = outcome.error?.message ?? h.stderrReader?.read(0).text.trim() ?? `exit code ${outcome.exitCode}`;
    throw new DshError('TERMINAL_START_FAILED', `the shell's start-up file could not be written: ${why}.`);
  }
  return {
    path: `${dir}/bashrc`,
    // Awaited: a composition disposed right after an open would otherwise end the rm before it ran.
    remove: async () => {
      try {
        await runtime.spawn(smallSpec(['rm', '-rf', '--', dir], { maxBytes: RC_WRITER_OUTPUT_BYTES })).done;
      } catch {
        // best effort: a runtime that is gone took its world (and the file) with it, or cannot say
      }
    },
  };
}

/** Makes a private directory in the world's temp dir, writes stdin to `bashrc` there, prints the directory. */
const RC_WRITER =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  'umask 077; d=$(mktemp -d "${TMPDIR:-/tmp}/dsh-term-XXXXXX") || exit 1; cat > "$d/bashrc" || exit 1; printf %s "$d"';
/** What the rc writer may print: a path or a short error. */
const RC_WRITER_OUTPUT_BYTES = 4096;

/** The payload the continuation prompt (PS2) carries: the command line is not complete. */
export function continuationPayload(nonce: string): string {
  return `133;S;${nonce}`;
}

/** A parsed prompt marker. */
export interface PromptMarker {
  exitCode: number;
  seq: number;
  /** The shell's pid (its process group when job control is on); null in a marker without it. */
  shellPid: number | null;
}

/** The marker in an OSC payload when it carries this session's nonce, else null (forgeries included). */
export function parseMarker(payload: string, nonce: string): PromptMarker | null {
  const parts = payload.split(';');
  if ((parts.length !== 5 && parts.length !== 6) || parts[0] !== '133' || parts[1] !== 'D' || parts[3] !== nonce)
    return null;
  const exitCode = Number(parts[2]);
  const seq = Number(parts[4]);
  const pid = parts.length === 6 ? Number(parts[5]) : null;
  if (!Number.isInteger(exitCode) || !Number.isInteger(seq)) return null;
  return { exitCode, seq, shellPid: pid !== null && Number.isInteger(pid) && pid > 1 ? pid : null };
}
