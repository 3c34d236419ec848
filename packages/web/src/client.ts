/**
 * One connected page: what it has been sent (the lists, each terminal's stream, each job's
 * output so far), so every look sends only what changed. Terminal output it has not drawn yet
 * is counted across all its terminals (see TerminalStream). A page whose socket stops draining
 * is disconnected (it reconnects and starts afresh) rather than buffered without bound.
 */
import type { JobRead, JobService } from '@dsh/jobs';
import type { TerminalService } from '@dsh/terminal';
import type { WebSocket } from 'ws';
import { WEB_CLOSE_GRACE_MS, WEB_JOB_CHUNK_MAX_CHARS, WEB_SOCKET_BUFFER_MAX_BYTES } from './limits.js';
import type { Look } from './look.js';
import type { ServerMessage } from './protocol.js';
import { type StreamBudget, TerminalStream } from './terminal-stream.js';

/** A job's output cursor for this page; `done` once its last output after the end was read. */
interface JobCursor {
  read: (() => JobRead) | null;
  done: boolean;
}

/** The state of one page. */
export class Client {
  readonly streams = new Map<string, TerminalStream>();
  private readonly jobCursors = new Map<string, JobCursor>();
  private readonly budget: StreamBudget = { unacked: 0 };
  private lastTerminals = '';
  private lastJobs = '';

  constructor(private readonly socket: WebSocket) {}

  /** Sends one message; a page too far behind is disconnected instead. */
  post(message: ServerMessage): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > WEB_SOCKET_BUFFER_MAX_BYTES) {
      this.socket.close(1013, 'the page fell behind; reconnect');
      return;
    }
    this.socket.send(JSON.stringify(message));
  }

  /** Brings the terminal list and streams up to date with `look`. */
  syncTerminals(look: Look, terminals: TerminalService | undefined): void {
    if (look.terminalJson !== this.lastTerminals) {
      this.lastTerminals = look.terminalJson;
      this.post({ type: 'terminals', list: look.terminalRows });
    }
    if (!terminals) return;
    const live = new Set(look.terminalRows.map((r) => r.id));
    for (const [id, stream] of this.streams) {
      if (live.has(id)) continue;
      stream.close();
      this.streams.delete(id);
    }
    for (const { owner, info } of look.terminals) {
      if (this.streams.has(info.id)) continue;
      const stream = new TerminalStream(terminals, owner, info.id, this.budget, (m) => this.post(m));
      this.streams.set(info.id, stream);
      void stream.start();
    }
  }

  /** Brings the job list and each job's output up to date with `look`. */
  syncJobs(look: Look, jobs: JobService | undefined): void {
    if (look.jobJson !== this.lastJobs) {
      this.lastJobs = look.jobJson;
      this.post({ type: 'jobs', list: look.jobRows });
    }
    if (!jobs) return;
    const live = new Set(look.jobRows.map((r) => r.id));
    for (const id of this.jobCursors.keys()) if (!live.has(id)) this.jobCursors.delete(id);
    for (const { owner, info } of look.jobs) {
      let cursor = this.jobCursors.get(info.id);
      if (!cursor) {
        cursor = { read: null, done: false };
        this.jobCursors.set(info.id, cursor);
      }
      if (cursor.done) continue;
      cursor.read ??= jobs.watch(owner, info.id);
      if (!cursor.read) {
        if (info.endedAt !== null) cursor.done = true; // ended without ever running, or not watchable
        continue;
      }
      // The job's state was taken before this read: the read after its end has all of its output.
      if (info.endedAt !== null) cursor.done = true;
      const { text } = cursor.read();
      if (text === '') continue;
      const omitted = Math.max(0, text.length - WEB_JOB_CHUNK_MAX_CHARS);
      this.post({ type: 'job_output', id: info.id, text: omitted > 0 ? text.slice(omitted) : text, omitted });
    }
  }

  /** Stops the page's streams. */
  close(): void {
    for (const stream of this.streams.values()) stream.close();
    this.streams.clear();
  }

  /** The server is stopping: a close frame, then the socket is cut after a short grace. */
  disconnect(): void {
    this.close();
    this.socket.close(1001, 'dsh web is stopping');
    setTimeout(() => this.socket.terminate(), WEB_CLOSE_GRACE_MS).unref();
  }
}
