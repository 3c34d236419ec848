/**
 * @dsh/tool-bash: the model tools `bash`, `job_output`, `job_kill`, `job_list`.
 */
export {
  bashArgs,
  bashOutput,
  jobIdArgs,
  jobKillOutput,
  jobListOutput,
  jobOutputOutput,
  jsonSchema,
  noArgs,
  parseArgs,
  toolError,
} from './args.js';
export type { BashToolOptions } from './bash-tool.js';
export { createBashTool } from './bash-tool.js';
export { createJobKillTool, createJobListTool, createJobOutputTool } from './job-tools.js';
export { MODEL_OUTPUT_MAX_CHARS, TRAILER_RESERVE_CHARS } from './limits.js';
export { TOOL_BASH_PLUGIN, toolBashPlugin } from './plugin.js';
export type { Naming } from './render-facts.js';
export { capForModel, completeCopy, factsOf, notesFor, renderForModel, renderMarkersOnly } from './render-facts.js';
export { jobRunOf, PROGRESS_INTERVAL_MS, runForeground } from './run-foreground.js';
export { spillDirOf } from './save-output.js';
