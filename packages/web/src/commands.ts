/**
 * Commands typed into the page: run through the composition's `bash` tool as the page's own
 * agent (one-shot, or as a background job), and returned rendered, with the trailer's markers
 * split off to be shown as badges.
 */
import type { Owner } from '@dsh/core';
import { parseShellResult } from '@dsh/shell';
import type { WebHost } from './host.js';
import type { ServerMessage } from './protocol.js';

/** A rendered result as the page shows it: the body, and the marker lines as badges. */
export function badged(text: string): { body: string; markers: string[] } {
  const parsed = parseShellResult(text);
  if (!parsed.wellFormed) return { body: text, markers: [] };
  const lines = text.split('\n');
  const body = lines.slice(0, lines.length - parsed.markerLines.length).join('\n');
  return { body: body.replace(/\n+$/, ''), markers: parsed.markerLines };
}

/** Runs one command from the page; resolves to the message for it. */
export async function runCommand(
  host: WebHost,
  agent: Owner,
  request: { ref: string; command: string; background: boolean },
): Promise<ServerMessage> {
  if (!host.tools.list().some((t) => t.name === 'bash')) {
    return {
      type: 'notice',
      level: 'error',
      code: 'WEB_NO_BASH',
      text: 'This composition has no bash tool (the minimal preset); use a terminal instead.',
    };
  }
  const args = request.background
    ? { command: request.command, run_in_background: true }
    : { command: request.command };
  const result = await host.tools.call(agent, 'bash', args);
  const job = typeof result.data.job_id === 'string' ? result.data.job_id : null;
  if (request.background && job && !result.isError) {
    // The tool's own words are for a model (job_output, job_kill): a person has the Jobs panel.
    const body = `Started job ${job}: its output grows under Jobs, where Kill stops it.`;
    return { type: 'result', ref: request.ref, body, markers: [], isError: false };
  }
  const { body, markers } = badged(result.text);
  return { type: 'result', ref: request.ref, body, markers, isError: result.isError };
}
