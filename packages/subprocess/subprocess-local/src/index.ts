/**
 * @dsh/subprocess-local: the local ctx.subprocess provider.
 */

export { CGROUP_POOL_MAX, CgroupContainer, sweepStale } from './cgroup.js';
export { ownCgroupDir, ownCgroupPathOf, pidsDeep, populated, useCgroupDescriptor } from './cgroup-fs.js';
export { MAX_SHADOWED_FD, shadowInheritedFds } from './child-fds.js';
export { inspectForeground, ttyOf } from './foreground.js';
export { checkCwd, LocalSubprocessHandle } from './local-handle.js';
export type { LocalSubprocessRuntimeOptions } from './local-runtime.js';
export { LocalSubprocessRuntime, PRUNE_BATCH } from './local-runtime.js';
export { LocalTerminalHandle, PTY_EXIT_QUIET_MS } from './local-terminal.js';
export { SUBPROCESS_LOCAL_PLUGIN, subprocessLocalPlugin } from './plugin.js';
export type { ProcEntry } from './proc-table.js';
export { parseStat, procAvailable, readProc, snapshotProcs, treeMembers } from './proc-table.js';
export { ProcessTree, type ProcSnapshot, takeSnapshot } from './process-tree.js';
export type { PtyModule, PtyProcess } from './pty-loader.js';
export { loadPty } from './pty-loader.js';
export { resolveExecutableSync } from './resolve-executable.js';
export { MIN_SIGNAL_TARGET, signalGroup, signalProcess } from './signals.js';
export { TreeCgroup } from './tree-cgroup.js';
export { TREE_POLL_MAX_MS, TREE_POLL_MIN_MS, type TreeWait, TreeWatcher } from './tree-watcher.js';
export { WATCHDOG } from './watchdog.js';
