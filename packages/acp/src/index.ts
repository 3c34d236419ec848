/**
 * @dsh/acp: `ctx.acp`, ACP agents as sub-agents over ctx.subprocess (DESIGN §16), and agent_task.
 */

export { ACP_FS_TIMEOUT_MS, ACP_MAX_READ_BYTES } from './files.js';
export type { AcpPluginOptions } from './plugin.js';
export { ACP_PLUGIN, acpPlugin } from './plugin.js';
export type { AcpAgentConfig, AcpMcpServer, AcpServiceDeps, ShareTools } from './service.js';
export { ACP_MAX_AGENTS, ACP_MAX_PARKED_PER_OWNER, AcpService } from './service.js';
export type { AgentTaskResult } from './session.js';
export { ACP_CANCEL_GRACE_MS, ACP_START_TIMEOUT_MS, runAgentTask } from './session.js';
export { PERMISSION_ANSWER_WAIT_MS } from './task-run.js';
export { ACP_MAX_TERMINALS, ACP_TERMINAL_OUTPUT_BYTES, ACP_TERMINAL_TIMEOUT_MS, AcpTerminals } from './terminals.js';
export {
  AGENT_TASK_DEFAULT_TIMEOUT_MS,
  AGENT_TASK_MAX_CHARS,
  AGENT_TASK_MAX_TIMEOUT_MS,
  createAgentTaskTool,
} from './tool.js';
