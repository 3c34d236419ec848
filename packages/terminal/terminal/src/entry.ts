/**
 * One published terminal as the service keeps it, and what can be said of it on its own: how
 * it is listed, whether it is free for a send, and the check of a new session's slot and name.
 */
import { DshError, type Owner } from '@dsh/core';
import { MAX_SESSIONS_PER_OWNER } from './limits.js';
import type { TerminalId, TerminalInfo, TerminalSession } from './types.js';
import type { TypingTurn } from './typing.js';

/** A published session. */
export interface Entry {
  id: TerminalId;
  owner: Owner;
  name: string | null;
  type: string;
  session: TerminalSession;
  createdAt: number;
  sending: Promise<unknown> | null;
  /** A person's typing turn, while it holds the terminal. */
  typing: TypingTurn | null;
  closing: Promise<void> | null;
}

/** The entry as listed. */
export function infoOf(e: Entry): TerminalInfo {
  return {
    id: e.id,
    name: e.name,
    type: e.type,
    state: e.session.state(),
    createdAt: e.createdAt,
    busy: e.sending !== null || e.typing !== null,
    foreground: e.session.foreground(),
    exitCode: e.session.exitCode(),
    exitSignal: e.session.exitSignal(),
  };
}

/** @throws DshError `TERMINAL_BUSY` while a send, a cancel's wait or a person's typing holds the terminal. */
export function checkFree(entry: Entry): void {
  if (!entry.sending && !entry.typing) return;
  const why = entry.sending
    ? 'still busy with the previous input; wait for it, or cancel it first'
    : 'taken by a person typing at the keyboard; wait a moment and send again';
  throw new DshError('TERMINAL_BUSY', `Terminal ${entry.id} is ${why}.`, { data: { terminalId: entry.id } });
}

/**
 * Whether `owner` may open one more session named `name`, given its published sessions and the
 * opens still in progress. @throws DshError `TERMINAL_LIMIT`, `TERMINAL_NAME_TAKEN`.
 */
export function checkSlot(mine: Entry[], opening: Array<{ name: string | null }>, name: string | null): void {
  // An exited session holds no process: it keeps its exit code until closed, but not a slot.
  const running = mine.filter((e) => e.session.state() === 'running');
  if (running.length + opening.length >= MAX_SESSIONS_PER_OWNER) {
    throw new DshError(
      'TERMINAL_LIMIT',
      `You have ${running.length + opening.length} running terminals (the limit); close one first.`,
    );
  }
  if (name !== null && (mine.some((e) => e.name === name) || opening.some((p) => p.name === name))) {
    throw new DshError(
      'TERMINAL_NAME_TAKEN',
      `You already have a terminal named "${name}"; pick another name or close it.`,
      {
        data: { name },
      },
    );
  }
}
