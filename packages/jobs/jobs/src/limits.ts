/** Default concurrent jobs per owner: two cores here, but most jobs wait on I/O (servers, watchers, tests). */
export const DEFAULT_MAX_RUNNING_PER_OWNER = 8;
/** Default queue per owner: a runaway loop of starts fails loudly instead of growing without bound. */
export const DEFAULT_MAX_QUEUED_PER_OWNER = 64;
/** Default ended jobs kept per owner: enough history for a session, bounded memory. */
export const DEFAULT_RETAIN_COUNT = 100;
/** Default retention of an ended job: an hour, long enough for a model to come back to it. */
export const DEFAULT_RETAIN_MS = 60 * 60 * 1000;
