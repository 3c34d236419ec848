/**
 * Argument schemas of the terminal tools.
 */
import { z } from 'zod';

/** The id terminal_open returned (its name says what it is: no description, to keep tools/list small). */
const terminalId = z.string().min(1);

export const openArgs = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .optional()
      .describe('A name of your own (letters, digits, . _ -).'),
    workdir: z.string().min(1).optional().describe('Starting directory, relative to the workspace.'),
    cols: z.number().int().min(1).max(1000).optional().describe('Columns (default 120).'),
    rows: z.number().int().min(1).max(1000).optional().describe('Rows (default 40).'),
  })
  .strict();

export const resizeArgs = z
  .object({
    terminal_id: terminalId,
    cols: z.number().int().min(1).max(1000).describe('Columns.'),
    rows: z.number().int().min(1).max(1000).describe('Rows.'),
  })
  .strict();

export const sendArgs = z
  .object({
    terminal_id: terminalId,
    input: z
      .string()
      .optional()
      .describe(
        'Text to type. Several lines go to a program that takes pastes (a REPL, an editor) as one paste, keeping their indentation; a trailing newline is an extra Enter.',
      ),
    submit: z.boolean().optional().describe('Press Enter after input (default true).'),
    paste: z
      .boolean()
      .optional()
      .describe('false: type several lines key by key even where pastes are taken (default true).'),
    wait_ms: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .optional()
      .describe(
        'Type nothing (no input or keys): wait up to this long for new output, returned once it pauses, or for the terminal to be ready.',
      ),
    keys: z
      .array(z.string())
      .max(256)
      .optional()
      .describe(
        'Keys after input instead of Enter (or alone): Enter, Escape, Tab, Backspace, Space, Delete, Insert, Up, Down, Left, Right, Home, End, PageUp, PageDown, C-a…C-z, F1…F12, or one character.',
      ),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .optional()
      .describe('Longest wait for it to be ready again (default 30000); it keeps running after.'),
  })
  .strict();

export const readArgs = z
  .object({
    terminal_id: terminalId,
    screen: z.boolean().optional().describe('Return what the screen shows now instead.'),
    offset: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe('Character offset to read from (default: the latest output).'),
    limit: z
      .number()
      .int()
      .positive()
      .max(30_000)
      .optional()
      .describe('Characters to read (default 10000, at most 30000).'),
  })
  .strict();

export const idArgs = z.object({ terminal_id: terminalId }).strict();

export const listArgs = z.object({}).strict();

const idFact = { terminal_id: z.string().optional(), error: z.object({ code: z.string() }).optional() };

/** `data` of terminal_open. */
export const openOutput = z.object({ ...idFact, name: z.string().nullable().optional() });
/** `data` of terminal_send (and of terminal_cancel when something ran). */
export const sendOutput = z.object({
  ...idFact,
  reason: z.enum(['stdin_read', 'inferred_idle', 'timeout', 'session_exited']).optional(),
  state: z.enum(['running', 'exited']).optional(),
  exit_code: z.number().int().nullable().optional(),
  cancelled: z.boolean().optional(),
  screen: z.boolean().optional(),
  omitted: z.number().int().optional(),
  omitted_gone: z.number().int().optional(),
  input_to: z.string().nullable().optional(),
  program_exit_code: z.number().int().nullable().optional(),
  program_line: z.string().nullable().optional(),
  timeout_cut_to_ms: z.number().int().optional(),
});
/** `data` of terminal_read. */
export const readOutput = z.object({
  ...idFact,
  screen: z.boolean().optional(),
  alternate: z.boolean().optional(),
  offset: z.number().int().optional(),
  next_offset: z.number().int().optional(),
  start_offset: z.number().int().optional(),
});
/** `data` of terminal_cancel. */
export const cancelOutput = z.object({
  ...idFact,
  cancelled: z.boolean().optional(),
  reason: z.enum(['stdin_read', 'inferred_idle', 'timeout', 'session_exited']).optional(),
  exit_code: z.number().int().nullable().optional(),
  state: z.enum(['running', 'exited']).optional(),
});

/** `data` of terminal_list. */
export const listOutput = z.object({
  terminals: z
    .array(
      z.object({
        terminal_id: z.string(),
        name: z.string().nullable(),
        state: z.enum(['running', 'exited']),
        foreground: z.string().nullable(),
        exit_code: z.number().int().nullable(),
        exit_signal: z.string().nullable(),
      }),
    )
    .optional(),
});
/** `data` of terminal_resize. */
export const resizeOutput = z.object({
  ...idFact,
  cols: z.number().int().optional(),
  rows: z.number().int().optional(),
});
/** `data` of terminal_close. */
export const closeOutput = z.object({ ...idFact, closed: z.boolean().optional() });
