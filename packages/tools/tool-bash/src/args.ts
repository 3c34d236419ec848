/**
 * Argument schemas of the bash and job tools (zod, exported as JSON Schema through core's tool kit).
 */
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

export { jsonSchema, parseArgs, toolError } from '@dsh/core';
