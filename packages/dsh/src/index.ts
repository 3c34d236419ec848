/**
 * dsh: the command-execution stack for AI agents. `compose()` is the front door; the layers'
 * packages are re-exported for harnesses that build by hand.
 */

export type { LocalBashConfig } from '@dsh/bash-local';
export { LocalBashExecutor } from '@dsh/bash-local';
export type { Ctx, Owner, Plugin, PrivateDirOptions, ToolDefinition, ToolInfo, ToolResult } from '@dsh/core';
export {
  Composition,
  createOwner,
  DshError,
  ensurePrivateDir,
  isDshError,
  makeFreshPrivateDir,
  UNSAFE_DIRECTORY,
} from '@dsh/core';
export { JobService } from '@dsh/jobs';
export type { ShellExecRequest, ShellExecResult, ShellExecSpec, ShellProcess } from '@dsh/shell';
export { parseShellResult, renderShellResult, ShellExecutor } from '@dsh/shell';
export type { SpawnSpec, SubprocessHandle } from '@dsh/subprocess';
export {
  CREDENTIAL_URL_PATTERN,
  CREDENTIAL_VALUE_PATTERN,
  isScrubbedEnvEntry,
  SENSITIVE_ENV_PATTERN,
  SENSITIVE_ENV_SUFFIX_PATTERN,
  SubprocessRuntime,
  scrubbedParentEnv,
} from '@dsh/subprocess';
export { LocalSubprocessRuntime } from '@dsh/subprocess-local';
export { CONFIG_SCHEMA } from './cli/config-schema.js';
export {
  EXIT_INTERNAL,
  EXIT_SIGNAL_BASE,
  EXIT_START_FAILED,
  EXIT_TIMEOUT,
  EXIT_USAGE,
  exitStatusOf,
} from './cli/exit-codes.js';
export { main } from './cli/main.js';
export type { ComposeOptions, Dsh } from './compose.js';
export { compose } from './compose.js';
export type { DshConfig, EscalationRequest, ResolvedDshConfig } from './config.js';
export { CONFIG_KEYS, CONFIG_SECTIONS, resolveDshConfig } from './config.js';
export type { LogRecord, SessionRead, SessionSummary } from './log/read-log.js';
export { listSessions, locateSession, readSession } from './log/read-log.js';
export { SESSION_RETAIN_BYTES, SESSION_RETAIN_MS, sweepSessions } from './log/retention.js';
export type { SessionStart } from './log/session-log.js';
export { DEFAULT_SESSION_ROOT, LOG_SEND_OUTPUT_MAX_CHARS, SessionLog } from './log/session-log.js';
export { factsOfRecord, renderSession, renderSessionJson } from './log/show-log.js';
export type { PresetName } from './presets.js';
export { PRESETS, presetPlugins } from './presets.js';
export { DSH_VERSION } from './version.js';
export type { WorldConfig } from './world.js';
export { WORLD_REMOTE_PLUGIN } from './world.js';
