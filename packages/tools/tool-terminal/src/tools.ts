/**
 * The terminal tools: terminal_open, terminal_send, terminal_read, terminal_cancel, terminal_close.
 */
import {
  defineTool,
  isDshError,
  type jsonSchema,
  resolveWorkdir,
  sharesFiles,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  toolError,
} from '@dsh/core';
import { DEFAULT_CANCEL_WAIT_MS, type TerminalService } from '@dsh/terminal';
import {
  cancelOutput,
  closeOutput,
  idArgs,
  listArgs,
  listOutput,
  openArgs,
  openOutput,
  readArgs,
  readOutput,
  resizeArgs,
  resizeOutput,
  sendArgs,
  sendOutput,
} from './args.js';
import { renderScreen, renderSend, shownOutput } from './format.js';
import { sendWatched } from './send-watched.js';

/** Default wait of terminal_send. */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
/** Default page of terminal_read. */
export const DEFAULT_READ_LIMIT = 10_000;
/** Backend type the tools open. */
const SHELL = 'shell';

/** Arguments of terminal_send. */
interface SendArgs {
  terminal_id: string;
  input?: string;
  submit?: boolean;
  keys?: string[];
  paste?: boolean;
  timeout_ms?: number;
  wait_ms?: number;
}

/** Errors the model can act on become isError results; anything else is an infrastructure failure. */
function modelError(error: unknown): ToolResult {
  const codes = [
    'TERMINAL_NOT_FOUND',
    'TERMINAL_BUSY',
    'TERMINAL_NAME_TAKEN',
    'TERMINAL_LIMIT',
    'INVALID_ARGUMENT',
    'TERMINAL_EXITED',
  ];
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

/** Creates the terminal tools for a workspace. */
export function createTerminalTools(options: { workspace: string }): ToolDefinition[] {
  return [
    tool(
      'terminal_open',
      'Open a persistent interactive bash terminal of your own (state, cwd and programs persist). Returns its terminal_id.',
      { args: openArgs, output: openOutput },
      async (args: { name?: string; workdir?: string; cols?: number; rows?: number }, terminals, { owner, ctx }) => {
        const where = resolveWorkdir(options.workspace, args.workdir, sharesFiles(ctx));
        if ('error' in where) return toolError(where.error, 'WORKDIR_NOT_FOUND');
        const opened = await terminals.open(owner, {
          type: SHELL,
          name: args.name,
          cwd: where.dir,
          ...(args.cols === undefined ? {} : { cols: args.cols }),
          ...(args.rows === undefined ? {} : { rows: args.rows }),
        });
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
      'Type into one of your terminals and wait until it is ready again: at the prompt, waiting for input, quiet, or the timeout. Returns what was printed (a full-screen program: its screen).',
      { args: sendArgs, output: sendOutput, annotations: { destructiveHint: true, openWorldHint: true } },
      async (args: SendArgs, terminals, context) => {
        const waitOnly = args.wait_ms !== undefined;
        if (waitOnly && ((args.input ?? '') !== '' || (args.keys ?? []).length > 0)) {
          return toolError(
            'wait_ms types nothing: give it without input and keys, or use timeout_ms to wait after typing.',
            'INVALID_ARGUMENT',
          );
        }
        // A wait longer than the caller's yield limit would outlive its request: the session keeps running.
        const asked = args.wait_ms ?? args.timeout_ms ?? DEFAULT_SEND_TIMEOUT_MS;
        const timeoutMs = context.yieldMs !== undefined ? Math.min(asked, context.yieldMs) : asked;
        const exitedBefore = terminals.list(context.owner).find((t) => t.id === args.terminal_id)?.state === 'exited';
        const r = await sendWatched(terminals, context, args.terminal_id, {
          text: args.input ?? '',
          timeoutMs,
          ...(waitOnly ? { submit: false } : args.submit === undefined ? {} : { submit: args.submit }),
          ...(args.keys === undefined ? {} : { keys: args.keys }),
          ...(args.paste === undefined ? {} : { paste: args.paste }),
        });
        const cut =
          timeoutMs < asked && r.reason === 'timeout'
            ? `\n[the wait was cut from ${asked} to ${timeoutMs} ms (this server hands control back by then); it keeps running: terminal_send with wait_ms to wait again]`
            : '';
        return {
          text: `${renderSend(args.terminal_id, r, timeoutMs, waitOnly)}${cut}`,
          // A send to a shell that had already exited did nothing: an error the model must act on.
          isError: exitedBefore && r.reason === 'session_exited',
          data: {
            terminal_id: args.terminal_id,
            reason: r.reason,
            state: r.state,
            exit_code: r.commandExitCode,
            cancelled: r.cancelled,
            screen: r.screen,
            // Exactly what the text leaves out (the tool's own cut included), and of it what is gone.
            omitted: shownOutput(r).notShown,
            omitted_gone: r.omittedGone,
            input_to: r.inputTo,
            program_exit_code: r.programExitCode,
            program_line: r.programLine,
            ...(timeoutMs < asked ? { timeout_cut_to_ms: timeoutMs } : {}),
          },
        };
      },
    ),
    tool(
      'terminal_read',
      'Read a terminal’s scrollback by character offset (default: the latest), or its screen (screen: true). Does not change what terminal_send returns.',
      { args: readArgs, output: readOutput, annotations: { readOnlyHint: true } },
      async (
        args: { terminal_id: string; offset?: number; limit?: number; screen?: boolean },
        terminals,
        { owner },
      ) => {
        if (args.screen) {
          const view = terminals.screen(owner, args.terminal_id);
          return {
            text: renderScreen(view),
            isError: false,
            data: { terminal_id: args.terminal_id, screen: true, alternate: view.alternate },
          };
        }
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
      'terminal_resize',
      'Resize one of your terminals: the program in it is told and redraws.',
      { args: resizeArgs, output: resizeOutput },
      async (args: { terminal_id: string; cols: number; rows: number }, terminals, { owner }) => {
        const view = terminals.resize(owner, args.terminal_id, { cols: args.cols, rows: args.rows });
        return {
          text: `Resized ${args.terminal_id} to ${view.cols}×${view.rows}; the program in it was told (SIGWINCH) and redraws: terminal_read with screen: true shows it.`,
          isError: false,
          data: { terminal_id: args.terminal_id, cols: view.cols, rows: view.rows },
        };
      },
    ),
    tool(
      'terminal_cancel',
      'Interrupt what runs in one of your terminals (Ctrl-C; typed-ahead input is dropped) and wait until it is ready again.',
      { args: idArgs, output: cancelOutput, annotations: { destructiveHint: true } },
      async (args: { terminal_id: string }, terminals, { owner }) => {
        const r = await terminals.cancel(owner, args.terminal_id);
        if (r === null) {
          return {
            text: `Nothing is running in ${args.terminal_id}: the shell is idle at its prompt.`,
            isError: false,
            data: { terminal_id: args.terminal_id, cancelled: false },
          };
        }
        return {
          text: renderSend(args.terminal_id, r, DEFAULT_CANCEL_WAIT_MS),
          isError: false,
          data: {
            terminal_id: args.terminal_id,
            cancelled: true,
            reason: r.reason,
            exit_code: r.commandExitCode,
            state: r.state,
          },
        };
      },
    ),
    tool(
      'terminal_list',
      'List your terminals: id, name, state, and what runs in the foreground.',
      { args: listArgs, output: listOutput, annotations: { readOnlyHint: true } },
      async (_args: Record<string, never>, terminals, { owner }) => {
        const all = terminals.list(owner);
        const text =
          all.length === 0
            ? 'No terminals. terminal_open starts one.'
            : all
                .map((t) => {
                  const what =
                    t.state !== 'exited'
                      ? (t.foreground ?? 'at the prompt')
                      : `exited (${t.exitSignal ? `killed by ${t.exitSignal}` : `code ${t.exitCode ?? '?'}`})`;
                  return `${t.id}${t.name ? ` (${t.name})` : ''}  ${what}`;
                })
                .join('\n');
        return {
          text,
          isError: false,
          data: {
            terminals: all.map((t) => ({
              terminal_id: t.id,
              name: t.name,
              state: t.state,
              foreground: t.foreground,
              exit_code: t.exitCode,
              exit_signal: t.exitSignal,
            })),
          },
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
