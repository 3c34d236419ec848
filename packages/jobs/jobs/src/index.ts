/**
 * @dsh/jobs: ctx.jobs — background work with ids, owners, a queue and bounded retention.
 */
export { Job } from './job.js';
export type { JobEndListener } from './job-service.js';
export { JobService } from './job-service.js';
export {
  DEFAULT_MAX_QUEUED_PER_OWNER,
  DEFAULT_MAX_RUNNING_PER_OWNER,
  DEFAULT_RETAIN_COUNT,
  DEFAULT_RETAIN_MS,
} from './limits.js';
export { JOBS_PLUGIN, jobsPlugin } from './plugin.js';
export type {
  JobId,
  JobInfo,
  JobOutput,
  JobRead,
  JobResult,
  JobRun,
  JobServiceOptions,
  JobSpec,
  JobState,
} from './types.js';
