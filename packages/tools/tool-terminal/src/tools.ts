/**
 * The terminal tools: terminal_open, terminal_send, terminal_read, terminal_cancel, terminal_close.
 */
import {
  defineTool,
  isDshError,
  type jsonSchema,
  resolveWorkdir,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  toolError,
} from '@dsh/core';
import type { TerminalService } from '@dsh/terminal';
import {
  cancelOutput,
  closeOutput,
  idArgs,
  openArgs,
  openOutput,
  readArgs,
  readOutput,
  sendArgs,
  sendOutput,
} from './args.js';
import { capOutput, statusLine } from './format.js';
import { sendWatched } from './send-watched.js';

/** Default wait of terminal_send. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
/** Default page of terminal_read. */
export const DEFAULT_READ_LIMIT = 10_000;
/** Backend type the tools open. */
const SHELL = 'shell';

/** Errors the model can act on become isError results; anything else is an infrastructure failure. */
function modelError(error: unknown): ToolResult {
  const codes = ['TERMINAL_NOT_FOUND', 'TERMINAL_BUSY', 'TERMINAL_NAME_TAKEN', 'TERMINAL_LIMIT', 'INVALID_ARGUMENT'];
  for (const code of codes) if (isDshError(error, code)) return toolError(error.message, code);
  if (isDshError(error))
    return toolError(`The terminal could not be used (${error.code}): ${error.message}`, error.code);
  throw error;
}

type Schema = Parameters<typeof jsonSchema>[0];

function tool(
  name: string,
  description: string,
  schemas: { args: Schema; output: Schema; annotations?: ToolAnnotations },
  run: (args: never, terminals: TerminalService, context: ToolContext) => Promise<ToolResult>,
): ToolDefinition {
  return defineTool({
    name,
    description,
    schema: schemas.args,
    output: schemas.output,
    ...(schemas.annotations ? { annotations: schemas.annotations } : {}),
    run: (args, context) => run(args as never, context.ctx.get('terminals'), context),
    onError: modelError,
  });
}

/** Creates the five terminal tools for a workspace. */
export function createTerminalTools(options: { workspace: string }): ToolDefinition[] {
  return [
    tool(
      'terminal_open',
      'Open a persistent interactive bash terminal of your own (state, cwd and programs persist between sends). Returns its terminal_id.',
      { args: openArgs, output: openOutput },
      async (args: { name?: string; workdir?: string }, terminals, { owner }) => {
        const where = resolveWorkdir(options.workspace, args.workdir);
        if ('error' in where) return toolError(where.error, 'WORKDIR_NOT_FOUND');
        const opened = await terminals.open(owner, { type: SHELL, name: args.name, cwd: where.dir });
        const intro = opened.opening.trim() ? `\n${opened.opening.trim()}` : '';
        return {
          text: `Opened terminal ${opened.id}${opened.name ? ` (${opened.name})` : ''} in ${where.dir}. Type into it with terminal_send.${intro}`,
          isError: false,
          data: { terminal_id: opened.id, name: opened.name },
        };
      },
    ),
    tool(
      'terminal_send',
      'Type input into one of your terminals (then Enter) and wait until it is ready again: at the prompt, waiting for input, quiet, or the timeout. Returns the new output.',
      { args: sendArgs, output: sendOutput, annotations: { destructiveHint: true, openWorldHint: true } },
      async (args: { terminal_id: string; input: string; timeout_ms?: number }, terminals, context) => {
        // A wait longer than the caller's yield limit would outlive its request: the session keeps running.
        const asked = args.timeout_ms ?? DEFAULT_SEND_TIMEOUT_MS;
        const timeoutMs = context.yieldMs !== undefined ? Math.min(asked, context.yieldMs) : asked;
        const r = await sendWatched(terminals, context, args.terminal_id, { text: args.input, timeoutMs });
        return {
          text: `${capOutput(r.output)}${r.output && !r.output.endsWith('\n') ? '\n' : ''}${statusLine(args.terminal_id, r, timeoutMs)}`,
          isError: false,
          data: {
            terminal_id: args.terminal_id,
            reason: r.reason,
            state: r.state,
            exit_code: r.commandExitCode,
            cancelled: r.cancelled,
          },
        };
      },
    ),
    tool(
      'terminal_read',
      'Read a terminal’s scrollback by character offset (default: the latest output). Does not change what terminal_send returns.',
      { args: readArgs, output: readOutput, annotations: { readOnlyHint: true } },
      async (args: { terminal_id: string; offset?: number; limit?: number }, terminals, { owner }) => {
        const page = terminals.scrollback(owner, args.terminal_id, {
          offset: args.offset,
          limit: args.limit ?? DEFAULT_READ_LIMIT,
        });
        const dropped =
          args.offset !== undefined && page.offset > args.offset ? ' (earlier output is no longer kept)' : '';
        return {
          text: `${page.text}${page.text.endsWith('\n') || page.text === '' ? '' : '\n'}[characters ${page.offset}–${page.nextOffset}${dropped}; oldest kept ${page.startOffset}; continue with offset ${page.nextOffset}]`,
          isError: false,
          data: {
            terminal_id: args.terminal_id,
            offset: page.offset,
            next_offset: page.nextOffset,
            start_offset: page.startOffset,
          },
        };
      },
    ),
    tool(
      'terminal_cancel',
      'Interrupt what a terminal is running for your pending terminal_send (Ctrl-C to its foreground program).',
      { args: idArgs, output: cancelOutput, annotations: { destructiveHint: true } },
      async (args: { terminal_id: string }, terminals, { owner }) => {
        const cancelled = await terminals.cancel(owner, args.terminal_id);
        return {
          text: cancelled
            ? `Interrupted the input in flight on ${args.terminal_id}.`
            : `Nothing is in flight on ${args.terminal_id}; to interrupt a program still running there, terminal_send it input (e.g. q) or close the terminal.`,
          isError: false,
          data: { terminal_id: args.terminal_id, cancelled },
        };
      },
    ),
    tool(
      'terminal_close',
      'Close one of your terminals, ending every program in it.',
      { args: idArgs, output: closeOutput, annotations: { destructiveHint: true, idempotentHint: true } },
      async (args: { terminal_id: string }, terminals, { owner }) => {
        const closed = await terminals.close(owner, args.terminal_id);
        return {
          text: closed
            ? `Closed terminal ${args.terminal_id}.`
            : `Terminal ${args.terminal_id} is already closed (or closing).`,
          isError: false,
          data: { terminal_id: args.terminal_id, closed },
        };
      },
    ),
  ];
}
