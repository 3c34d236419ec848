/**
 * The private start-up file of a persistent bash: a prompt marker (OSC 133;D) that carries the
 * last exit code, this session's nonce and a sequence number. The nonce and the hook are shell
 * variables, never exported, so programs run in the session do not inherit them.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A per-session secret that only the shell's own prompt hook prints. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The rc text for a session with this nonce. */
export function rcText(nonce: string): string {
  return [
    'unset HISTFILE',
    'set +H', // no history expansion: a "!" in a command means "!", as in a script
    "bind 'set enable-bracketed-paste on' 2>/dev/null", // input arrives as one paste; ?2004l marks its acceptance
    "PS1='$ '",
    `PS2='\\[\\e]133;S;${nonce}\\a\\]'`, // invisible; tells that the shell waits for the rest of a command
    `__dsh_nonce='${nonce}'`,
    '__dsh_seq=0',
    '__dsh_prompt() { local e=$?; __dsh_seq=$((__dsh_seq+1)); printf \'\\033]133;D;%s;%s;%s;%s\\007\' "$e" "$__dsh_nonce" "$__dsh_seq" "$$"; return $e; }',
    'PROMPT_COMMAND=__dsh_prompt',
    '',
  ].join('\n');
}

/**
 * Where rc files go: /var/tmp when usable, since a sandboxed shell gets a fresh /tmp and would
 * not see a file written to the host's.
 */
function rcParent(): string {
  try {
    accessSync('/var/tmp', constants.W_OK);
    return '/var/tmp';
  } catch {
    return tmpdir();
  }
}

/** Writes the rc file into a fresh private directory; `remove` deletes both. */
export function writeRcFile(nonce: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(rcParent(), 'dsh-term-'));
  const path = join(dir, 'bashrc');
  writeFileSync(path, rcText(nonce), { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

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
