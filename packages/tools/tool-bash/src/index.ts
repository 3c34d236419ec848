/**
 * @dsh/tool-bash: the model tools `bash`, `job_output`, `job_kill`, `job_list`.
 */
export { bashArgs, jobIdArgs, jsonSchema, noArgs, parseArgs, toolError } from './args.js';
export type { BashToolOptions, EscalationRequest } from './bash-tool.js';
export { createBashTool } from './bash-tool.js';
export { createJobKillTool, createJobListTool, createJobOutputTool } from './job-tools.js';
export { MODEL_OUTPUT_MAX_CHARS, TRAILER_RESERVE_CHARS } from './limits.js';
export { TOOL_BASH_PLUGIN, toolBashPlugin } from './plugin.js';
export { capForModel, factsOf, notesFor, renderForModel, renderMarkersOnly } from './render-facts.js';
export { spillDirOf } from './save-output.js';
