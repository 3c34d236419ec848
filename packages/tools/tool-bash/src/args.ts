/**
 * Argument schemas of the bash and job tools (zod, exported as JSON Schema) and the one place
 * that turns a validation failure into a model-readable error result.
 */
import type { ToolResult } from '@dsh/core';
import { z } from 'zod';

/** Arguments of `bash`. */
export const bashArgs = z
  .object({
    command: z
      .string()
      .trim()
      .min(1)
      .describe('The bash command to run (bash -c). Use shell syntax for pipes, redirects, heredocs.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Kill the command after this many milliseconds (default 120000, at most 600000). Ignored in the background.',
      ),
    workdir: z
      .string()
      .min(1)
      .optional()
      .describe('Working directory; relative paths are resolved against the workspace. Default: the workspace.'),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        'Start as a background job and return its job_id at once; read it with job_output, stop it with job_kill.',
      ),
    sandbox_permissions: z
      .enum(['use_default', 'require_escalated'])
      .optional()
      .describe('require_escalated asks to run outside the sandbox; needs a justification and an approval.'),
    justification: z.string().min(1).optional().describe('Why escalation is needed (required with require_escalated).'),
  })
  .strict();

/** Arguments of `job_output` and `job_kill`. */
export const jobIdArgs = z
  .object({ job_id: z.string().min(1).describe('The id returned by bash with run_in_background (e.g. job-1a2b3c4d).') })
  .strict();

/** Arguments of `job_list`. */
export const noArgs = z.object({}).strict();

/** JSON Schema of a zod schema, for `tools.list()`. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
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
