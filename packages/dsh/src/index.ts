/**
 * dsh: the command-execution stack for AI agents. `compose()` is the front door; the layers'
 * packages are re-exported for harnesses that build by hand.
 */

export type { LocalBashConfig } from '@dsh/bash-local';
export { LocalBashExecutor } from '@dsh/bash-local';
export type { Ctx, Owner, Plugin, ToolDefinition, ToolInfo, ToolResult } from '@dsh/core';
export { Composition, createOwner, DshError, isDshError } from '@dsh/core';
export { JobService } from '@dsh/jobs';
export type { ShellExecRequest, ShellExecResult, ShellExecSpec, ShellProcess } from '@dsh/shell';
export { parseShellResult, renderShellResult, ShellExecutor } from '@dsh/shell';
export type { SpawnSpec, SubprocessHandle } from '@dsh/subprocess';
export { SENSITIVE_ENV_PATTERN, SubprocessRuntime, scrubbedParentEnv } from '@dsh/subprocess';
export { LocalSubprocessRuntime } from '@dsh/subprocess-local';
export { exitStatusOf, main } from './cli.js';
export type { ComposeOptions, Dsh } from './compose.js';
export { compose } from './compose.js';
export type { DshConfig, EscalationRequest, ResolvedDshConfig } from './config.js';
export { resolveDshConfig } from './config.js';
export type { PresetName } from './presets.js';
export { PRESETS, presetPlugins } from './presets.js';
export { SessionLog } from './session-log.js';
