/**
 * The plugin that mounts `JobService` as `ctx.jobs`.
 */
import { type Plugin, persistentServicePlugin } from '@dsh/core';
import { JobService } from './job-service.js';
import type { JobServiceOptions } from './types.js';

/** Plugin name of {@link jobsPlugin}. */
export const JOBS_PLUGIN = 'jobs';

/** Provides `ctx.jobs`. A reload keeps the same service (jobs live on); teardown kills every job. */
export function jobsPlugin(options: JobServiceOptions = {}): Plugin {
  return persistentServicePlugin({
    name: JOBS_PLUGIN,
    key: 'jobs',
    create: () => new JobService(options),
    dispose: (service) => service.dispose(),
  });
}
