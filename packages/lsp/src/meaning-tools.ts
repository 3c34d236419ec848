/**
 * `lsp_workspace_symbols`, `lsp_format` and `lsp_code_actions` (meaning.ts): the same paths,
 * 1-based places and bounded answers as the other lsp_* tools; edits answer with the diff.
 */
import { relative } from 'node:path';
import { defineTool, type ToolDefinition, type ToolResult } from '@dsh/core';
import { z } from 'zod';
import type { LspHost, Place } from './host.js';
import { applyCodeAction, codeActions, formatFile, workspaceSymbols } from './meaning.js';
import { changedText } from './rename-tool.js';
import { countOutput, filesOutput, PLACE, pathArg, placeFields } from './tool-args.js';

/** Most workspace symbols listed (the rest are counted). */
export const LSP_MAX_WORKSPACE_SYMBOLS = 100;

/** The three tools; `inside` checks a path, `at` a place (each gives the error to return instead). */
export function createMeaningTools(
  workspace: string,
  inside: (path: string) => string | ToolResult,
  at: (args: { path: string; line: number; column: number }) => Place | ToolResult,
  onError: (error: unknown) => ToolResult,
): ToolDefinition[] {
  const host = (ctx: { get(k: 'lsp'): LspHost }) => ctx.get('lsp');
  return [
    defineTool({
      name: 'lsp_workspace_symbols',
      description: 'Symbols across the project matching query (path:line:column name).',
      schema: z.object({ query: z.string(), path: pathArg.describe('any file of the project').optional() }).strict(),
      output: countOutput,
      annotations: { readOnlyHint: true },
      onError,
      async run({ query, path }, { ctx, owner }) {
        const abs = path === undefined ? undefined : inside(path);
        if (typeof abs === 'object') return abs;
        const found = await workspaceSymbols(host(ctx), query, abs, owner);
        const lines = found
          .slice(0, LSP_MAX_WORKSPACE_SYMBOLS)
          .map(
            (s) =>
              `${relative(workspace, s.path) || s.path}:${s.line}:${s.column} ${s.name}${s.container ? ` (in ${s.container})` : ''}`,
          );
        const more = found.length - lines.length;
        const text =
          lines.length === 0
            ? 'No symbols.'
            : `${lines.join('\n')}${more > 0 ? `\n[${more} more symbols not shown]` : ''}`;
        return { text, isError: false, data: { count: found.length } };
      },
    }),
    defineTool({
      name: 'lsp_format',
      description: 'Format a file with its language server; answers with the diff.',
      schema: z.object({ path: pathArg }).strict(),
      output: filesOutput,
      annotations: { destructiveHint: true },
      onError,
      async run({ path }, { ctx, owner }) {
        const abs = inside(path);
        if (typeof abs !== 'string') return abs;
        const changes = await formatFile(host(ctx), abs, owner);
        if (changes.length === 0) return { text: `${path} is already formatted.`, isError: false, data: { files: [] } };
        const { names, text } = changedText(workspace, changes, 'Formatted');
        return { text, isError: false, data: { files: names } };
      },
    }),
    defineTool({
      name: 'lsp_code_actions',
      description: `Quick fixes and refactorings at ${PLACE}, numbered; apply: N applies one (diff answer).`,
      schema: z.object({ ...placeFields, apply: z.number().int().min(1).optional() }).strict(),
      output: filesOutput,
      annotations: { destructiveHint: true },
      onError,
      async run(args, { ctx, owner }) {
        const place = at(args);
        if ('isError' in place) return place;
        if (args.apply === undefined) {
          const list = await codeActions(host(ctx), place, owner);
          const lines = list.map(
            (a, i) =>
              `${i + 1}. ${a.title}${a.kind ? ` [${a.kind}]` : ''}${a.disabled ? ` (disabled: ${a.disabled})` : ''}`,
          );
          return { text: lines.length === 0 ? 'No code actions there.' : lines.join('\n'), isError: false, data: {} };
        }
        const { title, changes } = await applyCodeAction(host(ctx), place, args.apply, owner);
        const { names, text } = changedText(workspace, changes, `Applied "${title}"`);
        return { text, isError: false, data: { files: names } };
      },
    }),
  ];
}
