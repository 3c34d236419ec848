/**
 * Argument and result schemas of the bash and job tools (zod, exported as JSON Schema through
 * core's tool kit). Descriptions are what a model reads on every turn: short and exact.
 */
import { z } from 'zod';

/** Arguments of `bash`. */
export const bashArgs = z
  .object({
    command: z
      .string()
      .trim()
      .min(1, 'the command is blank (empty or only whitespace): give the bash source to run')
      .describe('Bash source, run with bash -c.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Kill it after this many ms (default 120000, max 600000).'),
    workdir: z.string().min(1).optional().describe('Working directory, relative to the workspace.'),
    run_in_background: z.boolean().optional().describe('Start as a background job; returns its job_id at once.'),
    sandbox_permissions: z
      .enum(['use_default', 'require_escalated'])
      .optional()
      .describe('require_escalated: ask to run outside the sandbox (needs justification).'),
    justification: z.string().min(1).optional().describe('Why escalation is needed.'),
  })
  .strict();

/** Arguments of `job_output` and `job_kill`. */
/** The job_id bash returned (its name says what it is: no description, to keep tools/list small). */
export const jobIdArgs = z.object({ job_id: z.string().min(1) }).strict();

/** Arguments of `job_list`. */
export const noArgs = z.object({}).strict();

const stream = z.object({ stdout: z.string().nullable(), stderr: z.string().nullable() });
const errorFact = { error: z.object({ code: z.string(), message: z.string().optional() }).optional() };
const jobState = z.enum(['queued', 'running', 'succeeded', 'failed', 'killed']);
/** The facts of a finished shell command (foreground result, or a job's end). */
const shellFacts = {
  exit_code: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  timed_out: z.boolean().optional(),
  aborted: z.boolean().optional(),
  truncated: z.boolean().optional(),
  stdout_bytes: z.number().int().optional(),
  stderr_bytes: z.number().int().optional(),
  spill_paths: stream.optional(),
  duration_ms: z.number().nullable().optional(),
  start_error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  sandbox: z.object({ mode: z.string(), denied: z.boolean(), denial: z.string().nullable() }).nullable().optional(),
  left_running: z.number().int().optional(),
};

/** `data` of a `bash` result: the command's facts, or the job it became. */
export const bashOutput = z.object({
  ...shellFacts,
  ...errorFact,
  display_truncated: z.boolean().optional(),
  saved_output: z.record(z.string(), z.string().nullable()).optional(),
  job_id: z.string().optional(),
  state: jobState.optional(),
  yielded: z.boolean().optional(),
});

/** `data` of a `job_output` result. */
export const jobOutputOutput = z.object({
  ...shellFacts,
  ...errorFact,
  job_id: z.string().optional(),
  state: jobState.optional(),
  lossy: z.boolean().optional(),
  killed: z.boolean().optional(),
});

/** `data` of a `job_kill` result. */
export const jobKillOutput = z.object({
  ...errorFact,
  job_id: z.string().optional(),
  killed: z.boolean().optional(),
  state: jobState.optional(),
});

/** `data` of a `job_list` result. */
export const jobListOutput = z.object({
  jobs: z.array(z.object({ job_id: z.string(), state: jobState, title: z.string() })).optional(),
});

export { jsonSchema, parseArgs, toolError } from '@dsh/core';
