/**
 * Foreground facts no older than a moment. A terminal across a channel (a remote or sandbox
 * world's runtime server) answers from its last look and asks again; facts from before the
 * shell's latest prompt would route a send to a program that has already ended (the send is
 * then typed to "the program in the foreground" and its own prompt is not waited for).
 */
import type { ForegroundFacts, SubprocessTerminalHandle } from '@dsh/subprocess';

/** How long a send waits for facts newer than the shell's latest prompt: a few channel round trips; past it the older facts stand. */
export const FRESH_FACTS_MAX_MS = 500;
/** Between two looks while waiting: a loopback channel answers within about a millisecond. */
const FRESH_FACTS_LOOK_MS = 2;

/**
 * The handle's facts once they were observed at `since()` (epoch ms) or later, or the latest ones
 * when `maxMs` pass first. `since` is asked again at each look: an event that came while the
 * facts were on their way (the shell's line editor began to read) makes them old too.
 */
export async function factsSince(
  handle: Pick<SubprocessTerminalHandle, 'inspectForeground'>,
  since: () => number,
  maxMs = FRESH_FACTS_MAX_MS,
): Promise<ForegroundFacts> {
  const deadline = Date.now() + maxMs;
  let facts = handle.inspectForeground();
  while (facts.observedAt !== undefined && facts.observedAt < since() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, FRESH_FACTS_LOOK_MS));
    facts = handle.inspectForeground();
  }
  return facts;
}
