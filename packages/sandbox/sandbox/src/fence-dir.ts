/**
 * The fence's own files on this machine (the execute-only Node.js, the unreadable file, the
 * seccomp program): made by the runtime's fence-files module, which a remote runtime server also
 * uses to make them on its machine.
 */
export {
  defaultFenceDir,
  ensurePrivateFenceDir,
  type FenceFiles,
  placeSeccomp,
  prepareFenceFiles,
} from '@dsh/subprocess-remote';
