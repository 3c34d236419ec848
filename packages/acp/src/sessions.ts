/**
 * The live sub-agent sessions of a composition, by id: a task without `session_id` opens one,
 * and it stays up after the turn so the model can answer the agent or go on with its work
 * (`session_id`); an idle one ends after {@link ACP_SESSION_IDLE_MS}, an owner holds at most
 * {@link ACP_MAX_SESSIONS_PER_OWNER} (the least recently used idle one ends first), and one whose
 * turn was cancelled or whose agent died ends at once. A session whose agent offers
 * `session/load` is remembered when its process ends (at most
 * {@link ACP_MAX_ENDED_SESSIONS_PER_OWNER}): a later `session_id` starts the agent again and
 * loads it. Sessions are an owner's own.
 */
import { randomBytes } from 'node:crypto';
import { DshError, type Owner } from '@dsh/core';
import type { AgentSession } from './agent-session.js';

/** An idle sub-agent session (its process up, no turn running) ends after this long. */
export const ACP_SESSION_IDLE_MS = 10 * 60_000;
/** Live sessions one owner may hold: each is an agent process; past it the least recently used idle one ends. */
export const ACP_MAX_SESSIONS_PER_OWNER = 4;
/** Ended sessions one owner's agents can load again (ids only, no process); past it the oldest is forgotten. */
export const ACP_MAX_ENDED_SESSIONS_PER_OWNER = 16;

interface Entry {
  owner: Owner;
  agent: string;
  /** Null: its process ended, and its agent can load it again (`agentSessionId`). */
  session: AgentSession | null;
  agentSessionId: string;
  /** A process is being started to load it. */
  loading?: boolean;
  endedAt?: number;
  timer?: NodeJS.Timeout;
}

/** The registry. */
export class AgentSessions {
  private readonly entries = new Map<string, Entry>();

  /**
   * The live session `id` of `owner` with agent `agent`.
   * @throws DshError `ACP_UNKNOWN_SESSION`, `ACP_SESSION_ENDED`, `ACP_SESSION_BUSY`.
   */
  take(owner: Owner, agent: string, id: string): AgentSession | { load: string } {
    const entry = this.entries.get(id);
    if (!entry || entry.owner !== owner) {
      throw new DshError(
        'ACP_UNKNOWN_SESSION',
        `No session ${id} of yours; call agent_task without session_id to start one.`,
      );
    }
    if (entry.agent !== agent) {
      throw new DshError('ACP_UNKNOWN_SESSION', `Session ${id} is with agent ${entry.agent}, not ${agent}.`);
    }
    if (entry.loading) throw new DshError('ACP_SESSION_BUSY', `Session ${id} is being loaded again; wait for it.`);
    if (!entry.session?.alive && (entry.session?.loadable ?? true)) {
      // Its process ended; the agent can take the session up again in a new one.
      entry.loading = true;
      if (entry.session) void this.end(id);
      clearTimeout(entry.timer);
      return { load: entry.agentSessionId };
    }
    if (!entry.session?.alive) {
      this.drop(id);
      throw new DshError(
        'ACP_SESSION_ENDED',
        `Session ${id} ended (its agent exited or it was idle too long); start a new one without session_id.`,
      );
    }
    if (entry.session?.busy)
      throw new DshError('ACP_SESSION_BUSY', `Session ${id} is in a turn; wait for it (job_output) or start another.`);
    clearTimeout(entry.timer);
    return entry.session as AgentSession;
  }

  /**
   * After a `{ load }` from take: the new process's session; null when the load was cancelled
   * (still loadable later), or when it failed with `forget` (forgotten).
   */
  loaded(id: string, session: AgentSession | null, forget = false): void {
    const entry = this.entries.get(id);
    if (!entry) {
      void session?.close();
      return;
    }
    entry.loading = false;
    if (session) {
      entry.session = session;
      delete entry.endedAt;
      this.bound(entry.owner, id); // a loaded session counts like a new one
    } else if (forget) this.drop(id);
  }

  /**
   * Registers a new session and returns its id (dsh's own: an agent's ids repeat across its
   * processes), ending `owner`'s least recently used idle one past the limit.
   */
  add(owner: Owner, agent: string, session: AgentSession): string {
    let id: string;
    do id = `${agent}-${randomBytes(4).toString('hex')}`;
    while (this.entries.has(id));
    this.entries.set(id, { owner, agent, session, agentSessionId: session.sessionId });
    this.bound(owner, id);
    return id;
  }

  /** Past the live bound of `owner`, ends its least recently used idle session other than `id`. */
  private bound(owner: Owner, id: string): void {
    const live = [...this.entries.entries()].filter(([, e]) => e.owner === owner && e.session !== null);
    if (live.length > ACP_MAX_SESSIONS_PER_OWNER) {
      const idle = live
        .filter(([other, e]) => other !== id && !e.session?.busy)
        .sort((a, b) => (a[1].session?.lastUsed ?? 0) - (b[1].session?.lastUsed ?? 0));
      if (idle[0]) void this.end(idle[0][0]);
    }
  }

  /** After a turn: kept for the next (an idle timer set), or ended when `keep` is false. */
  release(id: string, keep: boolean): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    if (!keep || !entry.session?.alive) {
      void this.end(id);
      return;
    }
    entry.timer = setTimeout(() => void this.end(id), ACP_SESSION_IDLE_MS);
    entry.timer.unref();
  }

  /** Ends every session of `owner` (or all). */
  async closeAll(owner?: Owner): Promise<void> {
    const ids = [...this.entries.entries()].filter(([, e]) => !owner || e.owner === owner).map(([id]) => id);
    await Promise.all(ids.map((id) => this.drop(id)));
  }

  /** Ends a session's process; one its agent can load again is remembered (the oldest past the bound forgotten). */
  private end(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry?.session) return Promise.resolve();
    if (!entry.session.loadable) return this.drop(id);
    clearTimeout(entry.timer);
    const closing = entry.session.close().catch(() => undefined);
    entry.session = null;
    entry.endedAt = Date.now();
    const ended = [...this.entries.entries()]
      .filter(([, e]) => e.owner === entry.owner && e.session === null && !e.loading)
      .sort((a, b) => (a[1].endedAt ?? 0) - (b[1].endedAt ?? 0));
    for (const [old] of ended.slice(0, Math.max(0, ended.length - ACP_MAX_ENDED_SESSIONS_PER_OWNER))) {
      this.entries.delete(old);
    }
    return closing;
  }

  private drop(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) return Promise.resolve();
    this.entries.delete(id);
    clearTimeout(entry.timer);
    return entry.session?.close().catch(() => undefined) ?? Promise.resolve();
  }
}
