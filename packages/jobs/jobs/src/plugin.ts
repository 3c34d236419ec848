/**
 * The plugin that mounts `JobService` as `ctx.jobs`.
 */
import type { Plugin } from '@dsh/core';
import { JobService } from './job-service.js';
import type { JobServiceOptions } from './types.js';

/** Plugin name of {@link jobsPlugin}. */
export const JOBS_PLUGIN = 'jobs';

/** Provides `ctx.jobs`. A reload keeps the same service (jobs live on); teardown kills every job. */
export function jobsPlugin(options: JobServiceOptions = {}): Plugin {
  let service: JobService | undefined;
  return {
    name: JOBS_PLUGIN,
    setup(api) {
      service ??= new JobService(options);
      api.provide('jobs', service);
    },
    async dispose(reason) {
      if (reason === 'reload' || !service) return;
      const s = service;
      service = undefined;
      await s.dispose();
    },
  };
}
