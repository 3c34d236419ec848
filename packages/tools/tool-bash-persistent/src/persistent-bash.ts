/**
 * The `bash` tool of the minimal preset: every call runs in the agent's own persistent shell, so
 * cwd, environment and functions carry over. A command that hangs past its deadline, or stops
 * to wait for input this tool cannot give, is interrupted (Ctrl-C); if the shell cannot be
 * brought back to its prompt it is replaced, so the next call never inherits a wedged shell.
 */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  isDshError,
  jsonSchema,
  type Owner,
  outputSchema,
  parseArgs,
  saveText,
  sharesFiles,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  toolError,
} from '@dsh/core';
import { planDisplay, renderShellResult } from '@dsh/shell';
import type { SendResult, TerminalService } from '@dsh/terminal';
import { z } from 'zod';

/** The owner-local name of the persistent shell. */
export const PERSISTENT_SESSION_NAME = 'persistent-bash';
/** Default deadline of one command, as for the one-shot bash tool. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Longest deadline a call may ask for. */
export const MAX_TIMEOUT_MS = 600_000;
/** How long an interrupt may take to bring the prompt back before the shell is replaced. */
export const INTERRUPT_WAIT_MS = 5_000;
/** Marks output printed while no command ran (a background job's, a job notice) ahead of this command's. */
const EARLIER_HEADING = '[printed since your last command:]';
const THIS_HEADING = '[this command:]';
/** Longest body a model sees (the rest is saved to a file named in a note). */
const BODY_MAX_CHARS = 28_000;

const args = z
  .object({
    command: z
      .string()
      .trim()
      .min(1)
      .describe('The bash command to run in your persistent shell (cwd, env and functions persist).'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .max(MAX_TIMEOUT_MS)
      .optional()
      .describe(`Interrupt the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS}).`),
  })
  .strict();

/** `data` of a result. */
const output = z.object({
  exit_code: z.number().int().nullable().optional(),
  reason: z.string().optional(),
  timed_out: z.boolean().optional(),
  aborted: z.boolean().optional(),
  terminal_id: z.string().optional(),
  error: z.object({ code: z.string() }).optional(),
});

/** One session lookup (or open) at a time per owner, so parallel first calls share one shell. */
const acquiring = new WeakMap<Owner, Promise<unknown>>();

function session(terminals: TerminalService, owner: Owner, workspace: string, notes: string[]): Promise<string> {
  const previous = acquiring.get(owner) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => findOrOpen(terminals, owner, workspace, notes));
  acquiring.set(owner, next);
  return next;
}

async function findOrOpen(
  terminals: TerminalService,
  owner: Owner,
  workspace: string,
  notes: string[],
): Promise<string> {
  const found = terminals.list(owner).find((t) => t.name === PERSISTENT_SESSION_NAME);
  if (found?.state === 'running') return found.id;
  if (found) {
    await terminals.close(owner, found.id);
    notes.push('your previous shell had exited, so this command ran in a new one (cwd and variables were reset)');
  }
  return (await terminals.open(owner, { type: 'shell', name: PERSISTENT_SESSION_NAME, cwd: workspace })).id;
}

/**
 * Interrupts whatever holds the shell (Ctrl-C through the line discipline, typed-ahead input
 * dropped) and waits for the prompt. The result when the prompt came back, `idle` when nothing
 * ran any more, null when the shell did not come back.
 */
async function interrupt(terminals: TerminalService, owner: Owner, id: string): Promise<SendResult | 'idle' | null> {
  const r = await terminals.cancel(owner, id, { timeoutMs: INTERRUPT_WAIT_MS });
  if (r === null) return 'idle';
  return r.reason === 'stdin_read' && r.commandExitCode !== null ? r : null;
}

/** Options of the persistent `bash` tool. */
export interface PersistentBashOptions {
  /** Absolute workspace: where the shell starts. */
  workspace: string;
  /** Directory for complete copies of output a model was shown only the end of. @default `<tmpdir>/dsh-<user>/spill` */
  savedDir?: string;
}

/** Creates the persistent `bash` tool. */
export function createPersistentBashTool(options: PersistentBashOptions): ToolDefinition {
  return {
    name: 'bash',
    description:
      'Run a bash command in your own persistent shell: cd, exports and functions carry over to the next call. Output ends with [exit code: N]. Commands that wait for input are interrupted; give input with a pipe or heredoc.',
    inputSchema: jsonSchema(args),
    outputSchema: outputSchema(output),
    annotations: { destructiveHint: true, openWorldHint: true },
    async call(raw: unknown, { ctx, owner, signal }: ToolContext): Promise<ToolResult> {
      const parsed = parseArgs(args, raw, 'bash');
      if (!parsed.ok) return parsed.result;
      const { command } = parsed.value;
      const timeoutMs = parsed.value.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const terminals = ctx.get('terminals');
      const notes: string[] = [];
      if (signal?.aborted) return toolError('The call was aborted before the command ran.', 'ABORTED');
      try {
        const id = await session(terminals, owner, options.workspace, notes);
        if (signal?.aborted) return toolError('The call was aborted before the command ran.', 'ABORTED');
        // The session may be closing (disposeAgent) when the abort comes: that cancel has nothing to do.
        const onAbort = (): void => void terminals.cancel(owner, id).catch(() => undefined);
        signal?.addEventListener('abort', onAbort, { once: true });
        let r: SendResult;
        try {
          r = await terminals.send(owner, id, { text: command, timeoutMs });
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
        let output = r.earlier === '' ? r.output : `${EARLIER_HEADING}\n${r.earlier}\n${THIS_HEADING}\n${r.output}`;
        if (r.earlierOmitted > 0) {
          notes.push(
            `${r.earlierOmitted} characters printed between your commands were no longer kept by the terminal`,
          );
        }
        let omitted = r.omitted;
        let exitCode = r.commandExitCode;
        const stuck =
          r.reason === 'timeout' || r.reason === 'inferred_idle' || (r.reason === 'stdin_read' && exitCode === null);
        if (stuck) {
          notes.push(
            r.reason === 'stdin_read'
              ? 'the command stopped to wait for input, which this tool cannot type; it was interrupted — pass input with a pipe or heredoc'
              : `the command was interrupted at its deadline; raise timeout_ms (at most ${MAX_TIMEOUT_MS}) if it needs longer`,
          );
          const back = await interrupt(terminals, owner, id);
          if (back === 'idle') {
            exitCode = null; // it ended on its own as the interrupt came: its status is not known
          } else if (back) {
            output += back.output;
            omitted += back.omitted;
            exitCode = back.commandExitCode;
          } else {
            await terminals.close(owner, id);
            notes.push(
              'the shell did not come back to its prompt, so it was replaced; the next call starts a fresh shell',
            );
            exitCode = null;
          }
        }
        if (r.state === 'exited') {
          await terminals.close(owner, id);
          notes.push('the shell exited; the next call starts a fresh one');
        }
        const plan = planDisplay(output, '', BODY_MAX_CHARS);
        if (plan.cut.stdout) {
          const path = saveText(
            sharesFiles(ctx) ? (options.savedDir ?? join(tmpdir(), `dsh-${userInfo().username}`, 'spill')) : null,
            'terminal',
            output,
          );
          const kept = omitted > 0 ? `its last ${output.length} characters are in ${path}` : `all of it is in ${path}`;
          notes.push(path ? `only the end of the output is shown; ${kept}` : 'only the end of the output is shown');
        }
        if (omitted > 0)
          notes.push(`the first ${omitted} characters of the output were no longer kept by the terminal`);
        const text = renderShellResult(
          {
            exitCode,
            signal: null,
            timedOut: stuck && r.reason !== 'stdin_read' && !r.cancelled,
            aborted: r.cancelled,
            timeoutMs,
            stdout: { text: output, truncated: false, totalBytes: Buffer.byteLength(output), spillPath: null },
            stderr: { text: '', truncated: false, totalBytes: 0, spillPath: null },
            sandbox: null,
            startError: null,
          },
          { maxChars: BODY_MAX_CHARS, notes },
        );
        return {
          text,
          isError: false,
          data: {
            exit_code: exitCode,
            reason: r.reason,
            timed_out: stuck && r.reason !== 'stdin_read',
            aborted: r.cancelled,
            terminal_id: id,
          },
        };
      } catch (error) {
        if (isDshError(error, 'TERMINAL_BUSY')) {
          return toolError(
            'Your shell is still running a previous command; wait for that call to return, then try again.',
            error.code,
          );
        }
        if (isDshError(error))
          return toolError(`The persistent shell could not be used (${error.code}): ${error.message}`, error.code);
        throw error;
      }
    },
  };
}
