/**
 * The messages between the page and the server, one JSON object per WebSocket message.
 * The page sends: `keys` (what the keyboard typed into a terminal), `ack` (terminal output it
 * has drawn, for flow control), `open` / `close` (a terminal), `run` (a one-shot or background
 * command). The server sends the rest (see {@link ServerMessage}).
 */
import { z } from 'zod';
import { WEB_COMMAND_MAX_CHARS } from './limits.js';

const terminalId = z.string().min(1).max(64);

/** A message from the page. */
export const clientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('keys'), id: terminalId, data: z.string().min(1).max(WEB_COMMAND_MAX_CHARS) }).strict(),
  z.object({ type: z.literal('ack'), id: terminalId, chars: z.number().int().nonnegative() }).strict(),
  z.object({ type: z.literal('open') }).strict(),
  z.object({ type: z.literal('close'), id: terminalId }).strict(),
  z
    .object({
      type: z.literal('run'),
      ref: z.string().max(64),
      command: z.string().trim().min(1).max(WEB_COMMAND_MAX_CHARS),
      background: z.boolean(),
    })
    .strict(),
  z.object({ type: z.literal('kill'), id: z.string().min(1).max(64) }).strict(),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

/** A terminal as the page lists it. */
export interface TerminalRow {
  id: string;
  name: string | null;
  owner: string;
  state: 'running' | 'exited';
  busy: boolean;
  foreground: string | null;
  exitCode: number | null;
}

/** A job as the page lists it. */
export interface JobRow {
  id: string;
  owner: string;
  title: string;
  state: string;
  /** How it ended (the rendered result's marker lines), once it did. */
  end: { markers: string[] } | null;
}

/** A message from the server. */
export type ServerMessage =
  | {
      type: 'hello';
      input: boolean;
      title: string;
      /** The name of the agent this page acts as (its own terminals and commands). */
      agent: string;
      facts: { preset: unknown; workspace: unknown; sandbox: unknown; world: unknown; log: boolean };
    }
  | { type: 'terminals'; list: TerminalRow[] }
  | { type: 'screen'; id: string; cols: number; rows: number; data: string }
  | { type: 'output'; id: string; data: string }
  | { type: 'jobs'; list: JobRow[] }
  | { type: 'job_output'; id: string; text: string; omitted: number }
  | { type: 'log'; records: Array<Record<string, unknown>> }
  | { type: 'result'; ref: string; body: string; markers: string[]; isError: boolean }
  | { type: 'notice'; level: 'info' | 'error'; text: string; code?: string; id?: string };
