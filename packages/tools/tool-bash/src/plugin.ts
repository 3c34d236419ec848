/**
 * The plugin that registers `bash`, `job_output`, `job_kill` and `job_list`.
 */
import { type Plugin, workspaceToolPlugin } from '@dsh/core';
import { type BashToolOptions, createBashTool } from './bash-tool.js';
import { createJobKillTool, createJobListTool, createJobOutputTool } from './job-tools.js';

/** Plugin name of {@link toolBashPlugin}. */
export const TOOL_BASH_PLUGIN = 'tool-bash';

/**
 * Registers the one-shot bash tool and the job tools; needs ctx.shell and ctx.jobs (and uses
 * ctx.sandboxPolicy when mounted).
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function toolBashPlugin(options: BashToolOptions): Plugin {
  return workspaceToolPlugin(TOOL_BASH_PLUGIN, ['shell', 'jobs'], options, (o) => [
    createBashTool(o),
    createJobOutputTool(),
    createJobKillTool(),
    createJobListTool(),
  ]);
}
