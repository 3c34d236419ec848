/**
 * What every tool package shares: zod schemas exported as JSON Schema, validation failures
 * turned into one model-readable error result (never a throw), workdirs resolved against the
 * workspace, and private files for output a model was shown only part of.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { DshError } from './errors.js';
import type { Ctx, Plugin } from './plugin.js';
import type { ToolAnnotations, ToolContext, ToolDefinition, ToolResult } from './tools.js';

/** JSON Schema of a zod schema, for `tools.list()`. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return withoutSafeBounds(rest) as Record<string, unknown>;
}

/**
 * Drops the bounds zod gives every integer (±Number.MAX_SAFE_INTEGER): they say nothing a model
 * needs and cost characters of every tools/list; the arguments are still checked against them.
 */
function withoutSafeBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeBounds);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) ||
      (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)
    )
      continue;
    out[key] = withoutSafeBounds(value);
  }
  return out;
}

/**
 * JSON Schema of a result's `data`: the declared fields are checked, and objects stay open to
 * fields added later (a client validating old results against a newer schema must not fail).
 */
export function outputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return singleTyped(rest) as Record<string, unknown>;
}

/**
 * Rewrites `type: [T, 'null']` as `anyOf: [{type: T}, {type: 'null'}]` throughout: the same
 * contract, in the spelling that single-`type` schema dialects (some model providers') accept.
 */
function singleTyped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTyped);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = singleTyped(value);
  if (Array.isArray(out.type)) {
    const { type, ...others } = out;
    return { ...others, anyOf: (type as unknown[]).map((t) => ({ type: t })) };
  }
  return out;
}

/** A tool error the model can act on. */
export function toolError(text: string, code: string, data: Record<string, unknown> = {}): ToolResult {
  return { text, isError: true, data: { error: { code }, ...data } };
}

/** Parses `args` or explains, in one message, every problem and the expected shape. */
export function parseArgs<T>(
  schema: z.ZodType<T>,
  args: unknown,
  tool: string,
): { ok: true; value: T } | { ok: false; result: ToolResult } {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'arguments';
    if (issue.code === 'unrecognized_keys') return `unknown argument(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    return `${where}: ${issue.message}`;
  });
  const expected = Object.keys((jsonSchema(schema).properties as object | undefined) ?? {}).join(', ') || 'none';
  return {
    ok: false,
    result: toolError(
      `Invalid arguments for ${tool}: ${problems.join('; ')}. Accepted arguments: ${expected}. Fix them and call ${tool} again.`,
      'INVALID_ARGUMENT',
      { issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
    ),
  };
}

/** The absolute workdir, or a message telling the model what to do instead. */
export function resolveWorkdir(
  workspace: string,
  workdir: string | undefined,
  check = true,
): { dir: string } | { error: string } {
  const dir = workdir === undefined ? workspace : isAbsolute(workdir) ? resolve(workdir) : resolve(workspace, workdir);
  if (!check) return { dir }; // another machine's path: its runtime says CWD_NOT_FOUND at spawn
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) {
    return {
      error: `workdir "${workdir ?? dir}" is not an existing directory (resolved to ${dir}; relative paths start at the workspace ${workspace}). Use an existing directory, or create it first with mkdir -p.`,
    };
  }
  return { dir };
}

/**
 * True unless the composition's ctx.subprocess runs on another machine, whose files this
 * process cannot see: then tools neither check paths locally nor save copies locally.
 */
export function sharesFiles(ctx: Ctx): boolean {
  const subprocess = (ctx as unknown as Record<string, { sharesFilesystem?: unknown } | undefined>).subprocess;
  return subprocess?.sharesFilesystem !== false;
}

/**
 * Writes `text` to a new private file (0600) in `dir` (made 0700); its path, or null when it
 * could not be written (or `dir` is null: no place the model can read).
 */
export function saveText(dir: string | null, label: string, text: string | Uint8Array): string | null {
  if (dir === null) return null;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `dsh-${process.pid}-${randomBytes(8).toString('hex')}.${label}`);
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    return path;
  } catch {
    return null;
  }
}

/**
 * A plugin that registers tools for a workspace.
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function workspaceToolPlugin<O extends { workspace: string }>(
  name: string,
  requires: readonly string[],
  options: O,
  tools: (options: O) => ToolDefinition[],
): Plugin {
  if (typeof options?.workspace !== 'string' || !isAbsolute(options.workspace)) {
    throw new DshError('INVALID_ARGUMENT', `${name} needs { workspace } as an absolute path.`, {
      data: { field: 'workspace' },
    });
  }
  return {
    name,
    requires,
    setup(api) {
      for (const tool of tools(options)) api.registerTool(tool);
    },
  };
}

/** What {@link defineTool} needs. */
export interface ToolSpec<T> {
  name: string;
  description: string;
  schema: z.ZodType<T>;
  /** Shape of `data` in its results. @default any object */
  output?: z.ZodType;
  /** Effect hints (read-only, destructive, …). @default none */
  annotations?: ToolAnnotations;
  /** Runs with checked arguments. */
  run(args: T, context: ToolContext): Promise<ToolResult>;
  /** Turns a failure the model can act on into an isError result; rethrows anything else. @default rethrow */
  onError?(error: unknown): ToolResult;
}

/** A tool whose arguments are checked against its schema before it runs (bad input is an isError result). */
export function defineTool<T>(spec: ToolSpec<T>): ToolDefinition {
  // JSON Schemas are made on first listing, not at mount: start-up does not pay for them.
  let input: Record<string, unknown> | undefined;
  let output: Record<string, unknown> | undefined;
  const output$ = spec.output;
  return {
    name: spec.name,
    description: spec.description,
    get inputSchema() {
      input ??= jsonSchema(spec.schema);
      return input;
    },
    ...(output$
      ? {
          get outputSchema() {
            output ??= outputSchema(output$);
            return output;
          },
        }
      : {}),
    ...(spec.annotations ? { annotations: spec.annotations } : {}),
    async call(raw, context) {
      const parsed = parseArgs(spec.schema, raw, spec.name);
      if (!parsed.ok) return parsed.result;
      try {
        return await spec.run(parsed.value, context);
      } catch (error) {
        if (spec.onError) return spec.onError(error);
        throw error;
      }
    },
  };
}
