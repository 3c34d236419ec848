/**
 * The plugin that registers `bash`, `job_output`, `job_kill` and `job_list`.
 */
import { isAbsolute } from 'node:path';
import { DshError, type Plugin } from '@dsh/core';
import { type BashToolOptions, createBashTool } from './bash-tool.js';
import { createJobKillTool, createJobListTool, createJobOutputTool } from './job-tools.js';

/** Plugin name of {@link toolBashPlugin}. */
export const TOOL_BASH_PLUGIN = 'tool-bash';

/**
 * Registers the one-shot bash tool and the job tools; needs ctx.shell and ctx.jobs.
 * @throws DshError `INVALID_ARGUMENT` when `workspace` is not an absolute path.
 */
export function toolBashPlugin(options: BashToolOptions): Plugin {
  if (typeof options?.workspace !== 'string' || !isAbsolute(options.workspace)) {
    throw new DshError('INVALID_ARGUMENT', 'toolBashPlugin needs { workspace } as an absolute path.', {
      data: { field: 'workspace' },
    });
  }
  return {
    name: TOOL_BASH_PLUGIN,
    requires: ['shell', 'jobs'], // ctx.sandboxPolicy is used when mounted
    setup(api) {
      api.registerTool(createBashTool(options));
      api.registerTool(createJobOutputTool());
      api.registerTool(createJobKillTool());
      api.registerTool(createJobListTool());
    },
  };
}
