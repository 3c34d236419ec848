/**
 * The lsp_* model tools: workspace-relative paths, 1-based line and column, bounded output like
 * every other tool's. A path outside the workspace, a file no server serves, a server that
 * fails: clear errors that say what to do.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { DshError, defineTool, type ToolDefinition, type ToolResult, toolError } from '@dsh/core';
import { z } from 'zod';
import type { LspHost, Place } from './host.js';
import { createMeaningTools } from './meaning-tools.js';
import { createRenameTool } from './rename-tool.js';
import { countOutput, errorFact, PLACE, pathArg, placeFields } from './tool-args.js';

/** Most items one lsp_* result lists (the rest are counted). */
export const LSP_MAX_ITEMS = 200;
/** Most characters of hover text shown. */
const HOVER_MAX_CHARS = 4_000;

const pathArgs = z.object({ path: pathArg }).strict();
const placeArgs = z.object(placeFields).strict();
const place = { path: z.string(), line: z.number(), column: z.number() };
const diagnosticsOutput = z.object({
  ...errorFact,
  count: z.number().optional(),
  partial: z.boolean().optional(),
  diagnostics: z
    .array(z.object({ ...place, severity: z.string(), message: z.string(), source: z.string().nullable() }))
    .optional(),
});
const locationsOutput = z.object({
  ...errorFact,
  count: z.number().optional(),
  locations: z.array(z.object(place)).optional(),
});
const hoverOutput = z.object({ ...errorFact });

/** The absolute path of `path` inside `workspace`, or the error to give the model. */
function inside(workspace: string, path: string): string | ToolResult {
  const abs = resolve(workspace, path);
  const rel = relative(workspace, abs);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    return toolError(`${path} is outside the workspace ${workspace}; give a path inside it.`, 'OUTSIDE_WORKSPACE');
  }
  return abs;
}

function shown(workspace: string, p: Place): string {
  return `${relative(workspace, p.path) || p.path}:${p.line}:${p.column}`;
}

function listed(lines: string[], what: string): string {
  if (lines.length === 0) return `No ${what}.`;
  const more = lines.length - LSP_MAX_ITEMS;
  return [...lines.slice(0, LSP_MAX_ITEMS), ...(more > 0 ? [`[${more} more ${what} not shown]`] : [])].join('\n');
}

function lspError(error: unknown): ToolResult {
  if (error instanceof DshError && (error.code.startsWith('LSP_') || error.code === 'SANDBOX_UNAVAILABLE')) {
    return toolError(`${error.message}`, error.code);
  }
  throw error;
}

/** The lsp_* tools over `workspace`. */
export function createLspTools(options: { workspace: string }): ToolDefinition[] {
  const { workspace } = options;
  const lsp = (ctx: { get(k: 'lsp'): LspHost }) => ctx.get('lsp');
  const at = (args: { path: string; line: number; column: number }): Place | ToolResult => {
    const abs = inside(workspace, args.path);
    return typeof abs === 'string' ? { path: abs, line: args.line, column: args.column } : abs;
  };
  const places = (list: Place[] & { partial?: string }, what: string) => {
    const text = listed(
      list.map((p) => shown(workspace, p)),
      what,
    );
    return list.partial ? `${text}\n[partial: ${list.partial}]` : text;
  };
  return [
    defineTool({
      name: 'lsp_diagnostics',
      description: 'Errors and warnings of a file from its language server.',
      schema: pathArgs,
      output: diagnosticsOutput,
      annotations: { readOnlyHint: true },
      onError: lspError,
      async run({ path }, { ctx, owner }) {
        const abs = inside(workspace, path);
        if (typeof abs !== 'string') return abs;
        const found = await lsp(ctx).diagnostics(abs, owner);
        const lines = found.map((d) => `${shown(workspace, d)}: ${d.severity}: ${d.message.replace(/\s*\n\s*/g, ' ')}`);
        const text = listed(lines, 'diagnostics');
        return {
          text: found.partial ? `${text}\n[partial: ${found.partial}]` : text,
          isError: false,
          data: {
            count: found.length,
            diagnostics: found.slice(0, LSP_MAX_ITEMS),
            ...(found.partial ? { partial: true } : {}),
          },
        };
      },
    }),
    ...(['definition', 'references'] as const).map((kind) =>
      defineTool({
        name: `lsp_${kind}`,
        description:
          kind === 'definition'
            ? `Where the symbol at ${PLACE} is defined.`
            : `Every use of the symbol at ${PLACE}, its declaration included.`,
        schema: placeArgs,
        output: locationsOutput,
        annotations: { readOnlyHint: true },
        onError: lspError,
        async run(args, { ctx, owner }) {
          const place = at(args);
          if ('isError' in place) return place;
          const found =
            kind === 'definition' ? await lsp(ctx).definition(place, owner) : await lsp(ctx).references(place, owner);
          return {
            text: places(found, kind === 'definition' ? 'definitions' : 'references'),
            isError: false,
            data: { count: found.length, locations: found.slice(0, LSP_MAX_ITEMS) },
          };
        },
      }),
    ),
    defineTool({
      name: 'lsp_hover',
      description: `Type and documentation of the symbol at ${PLACE}.`,
      schema: placeArgs,
      output: hoverOutput,
      annotations: { readOnlyHint: true },
      onError: lspError,
      async run(args, { ctx, owner }) {
        const place = at(args);
        if ('isError' in place) return place;
        const text = (await lsp(ctx).hover(place, owner)) ?? 'Nothing to show at that position.';
        const cut =
          text.length > HOVER_MAX_CHARS
            ? `${text.slice(0, HOVER_MAX_CHARS)}\n[${text.length - HOVER_MAX_CHARS} more characters not shown]`
            : text;
        return { text: cut, isError: false, data: {} };
      },
    }),
    defineTool({
      name: 'lsp_symbols',
      description: 'A file’s outline: symbols with line:column, nested.',
      schema: pathArgs,
      output: countOutput,
      annotations: { readOnlyHint: true },
      onError: lspError,
      async run({ path }, { ctx, owner }) {
        const abs = inside(workspace, path);
        if (typeof abs !== 'string') return abs;
        const found = await lsp(ctx).symbols(abs, owner);
        const lines = found.map((s) => `${'  '.repeat(s.depth)}${s.name} ${s.line}:${s.column}`);
        return { text: listed(lines, 'symbols'), isError: false, data: { count: found.length } };
      },
    }),
    createRenameTool(workspace, at, lspError),
    ...createMeaningTools(workspace, (path) => inside(workspace, path), at, lspError),
  ];
}
