/**
 * Test helpers: a real subprocess runtime and executor per test, cleaned up afterwards.
 */
import { join } from 'node:path';
import { type LocalBashConfig, LocalBashExecutor } from '@dsh/bash-local';
import { afterEach } from 'vitest';
import { tempDir } from '../../../../test/support.js';
import { type TestRuntime, worldRuntime } from '../../../../test/worlds.js';

export { isAlive, tempDir, waitFor } from '../../../../test/support.js';

const runtimes: TestRuntime[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
});

/** An executor over a fresh runtime of the test world, spilling into a temp dir unless the config says otherwise. */
export function executor(config: LocalBashConfig = {}): LocalBashExecutor {
  const subprocess = worldRuntime();
  runtimes.push(subprocess);
  return new LocalBashExecutor({ subprocess }, { spillDir: join(tempDir(), 'spill'), graceMs: 300, ...config });
}
