/**
 * The event store of HTTP sessions: what a client that lost an event stream gets again when it
 * resumes (`Last-Event-ID`). In memory, per session, bounded: the oldest events go first past
 * {@link MCP_HTTP_EVENTS_MAX}, and a resume from an event no longer kept replays nothing.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { MCP_HTTP_EVENTS_MAX } from './limits.js';

/** A bounded in-memory event store (one per session). */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<string, { stream: string; message: JSONRPCMessage }>();
  private next = 0;

  constructor(private readonly max: number = MCP_HTTP_EVENTS_MAX) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.next}`;
    this.events.set(id, { stream: streamId, message });
    while (this.events.size > this.max) {
      const oldest = this.events.keys().next().value as string;
      this.events.delete(oldest);
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.stream ?? streamOf(eventId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const stream = this.events.get(lastEventId)?.stream ?? streamOf(lastEventId) ?? '';
    if (!this.events.has(lastEventId)) return stream; // gone (or never ours): nothing to replay
    let after = false;
    for (const [id, event] of this.events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.stream === stream) await send(id, event.message);
    }
    return stream;
  }
}

/** The stream an event id names (`<stream>_<n>`), or undefined. */
function streamOf(eventId: string): string | undefined {
  const at = eventId.lastIndexOf('_');
  return at > 0 ? eventId.slice(0, at) : undefined;
}
