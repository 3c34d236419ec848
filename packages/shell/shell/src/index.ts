/**
 * @dsh/shell: the ctx.shell contract (DESIGN §4), result rendering and parsing.
 */
export { ShellExecutor } from './executor.js';
export type { Marker } from './markers.js';
export { escapeBody, isMarkerLine, parseMarker, unescapeBody } from './markers.js';
export type { ParsedShellResult } from './parse.js';
export { parseShellResult } from './parse.js';
export type { DisplayPlan, RenderableResult, RenderOptions } from './render.js';
export { keepTail, keepTailLines, planDisplay, renderShellResult } from './render.js';
export { INFRASTRUCTURE_START_ERRORS, infrastructureError } from './start-failure.js';
export type {
  CapturedText,
  ProcessRead,
  ResolvedSandbox,
  SandboxFacts,
  SandboxMode,
  ShellExecRequest,
  ShellExecResult,
  ShellExecSpec,
  ShellProcess,
  ShellProcessOutcome,
  ShellStartOptions,
  StartFailure,
} from './types.js';
