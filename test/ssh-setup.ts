/**
 * Global set-up of the `ssh` vitest project: one real sshd on loopback for the whole run; the
 * suites reach it through `inject('sshArgv')` (see test/worlds.ts). Torn down after the run.
 */
import type { TestProject } from 'vitest/node';
import { startSshd } from './sshd.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The channel argv of the run's sshd, logging in as root. */
    sshArgv: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const sshd = await startSshd();
  project.provide('sshArgv', sshd.argv());
  return () => sshd.stop();
}
