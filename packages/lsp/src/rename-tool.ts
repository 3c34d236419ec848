/**
 * `lsp_rename`: the symbol at path:line:column renamed everywhere the language server knows of,
 * within what the sandbox lets the agent write (edits.ts), answered with the diff.
 */
import { relative } from 'node:path';
import { defineTool, type ToolDefinition, type ToolResult } from '@dsh/core';
import { z } from 'zod';
import { type FileChange, renameSymbol, unifiedDiff } from './edits.js';
import type { LspHost, Place } from './host.js';
import { filesOutput, PLACE, placeFields } from './tool-args.js';

/** Characters of diff a rename's answer shows at most (the files changed are all listed). */
export const LSP_DIFF_MAX_CHARS = 20_000;

const renameArgs = z.object({ ...placeFields, new_name: z.string().min(1) }).strict();

/** What an edit changed, for the model: `head` with the files, then the diff (bounded). */
export function changedText(
  workspace: string,
  changes: readonly FileChange[],
  head: string,
): { names: string[]; text: string } {
  const names = changes.map((c) => relative(workspace, c.path) || c.path);
  let diff = changes.map((c, i) => unifiedDiff(names[i] as string, c.before, c.after)).join('\n');
  if (diff.length > LSP_DIFF_MAX_CHARS) {
    diff = `${diff.slice(0, LSP_DIFF_MAX_CHARS)}\n[${diff.length - LSP_DIFF_MAX_CHARS} more characters of diff not shown]`;
  }
  return {
    names,
    text: `${head} in ${changes.length} file${changes.length === 1 ? '' : 's'}: ${names.join(', ')}\n${diff}`,
  };
}

/** The rename tool over `workspace`; `at` turns arguments into a place (or the error to give). */
export function createRenameTool(
  workspace: string,
  at: (args: { path: string; line: number; column: number }) => Place | ToolResult,
  onError: (error: unknown) => ToolResult,
): ToolDefinition {
  return defineTool({
    name: 'lsp_rename',
    description: `Rename the symbol at ${PLACE} everywhere; answers with the diff (all or nothing).`,
    schema: renameArgs,
    output: filesOutput,
    annotations: { destructiveHint: true },
    onError,
    async run(args, { ctx, owner }) {
      const place = at(args);
      if ('isError' in place) return place;
      const host = ctx.get('lsp') as LspHost;
      const { changes, partial } = await renameSymbol(host, place, args.new_name, owner);
      const { names, text } = changedText(workspace, changes, `Renamed to ${args.new_name}`);
      return { text: `${text}${partial ? `\n[partial: ${partial}]` : ''}`, isError: false, data: { files: names } };
    },
  });
}
