/**
 * @dsh/subprocess: the ctx.subprocess contract (DESIGN §3) shared by every provider.
 */
export {
  CREDENTIAL_URL_PATTERN,
  CREDENTIAL_VALUE_PATTERN,
  childEnv,
  isScrubbedEnvEntry,
  isScrubbedEnvName,
  isScrubbedEnvValue,
  MANAGED_ENV_PATTERN,
  mergeEnv,
  SENSITIVE_ENV_PATTERN,
  SENSITIVE_ENV_SUFFIX_PATTERN,
  scrubbedParentEnv,
} from './env.js';
export { MAX_COLLECT_BYTES, MAX_GRACE_MS, MAX_SPILL_BYTES, TAIL_COPY_MIN_WASTE } from './limits.js';
export { FALLBACK_LOCALE, localeEntries } from './locale.js';
export type { CollectorObserver, OutputCollectorOptions } from './output-collector.js';
export { OutputCollector } from './output-collector.js';
export { SubprocessRuntime } from './runtime.js';
export { shellQuote } from './shell-quote.js';
export type { SmallSpecOptions } from './small-spec.js';
export { smallSpec } from './small-spec.js';
export type {
  ForegroundFacts,
  OutputDisposition,
  OutputRead,
  OutputReader,
  SpawnSpec,
  SpillSpec,
  StdinDisposition,
  SubprocessHandle,
  SubprocessOutcome,
  SubprocessTerminalHandle,
  TerminalSpawnSpec,
} from './types.js';
export { FOREGROUND_SIGNALS } from './types.js';
export { completePrefixLength, isContinuationByte, leadingPartialBytes, sequenceLength } from './utf8.js';
export { assertProgramShape, validateSpawnSpec, validateTerminalSpawnSpec } from './validate-spec.js';
export { setWritableAlias, writablePath } from './writable-alias.js';
