/**
 * Test helpers for the local provider: runtimes disposed after each test, plus the shared
 * polling, liveness and temp-dir helpers.
 */
import { tmpdir } from 'node:os';
import type { SpawnSpec } from '@dsh/subprocess';
import type { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { afterEach } from 'vitest';
import { worldRuntime } from '../../../../test/worlds.js';

export { DEADLINE_MS, isAlive, pidsIn, tempDir, tracker, waitFor } from '../../../../test/support.js';

const runtimes: { dispose(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
});

/**
 * A runtime disposed after the test: the local provider, or — in the `channel` test project —
 * the same contract over a channel to a runtime server (typed as local for the provider-only
 * suites, which that project does not run).
 */
export function runtime(options?: ConstructorParameters<typeof LocalSubprocessRuntime>[0]): LocalSubprocessRuntime {
  const r = worldRuntime(options) as LocalSubprocessRuntime;
  runtimes.push(r);
  return r;
}

/** A complete spec collecting both streams, with the given fields replaced. */
export function spec(argv: string[], over: Partial<SpawnSpec> = {}): SpawnSpec {
  return {
    argv,
    cwd: tmpdir(),
    env: {},
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1024 * 1024 },
    stderr: { kind: 'collect', maxBytes: 1024 * 1024 },
    graceMs: 2_000,
    ...over,
  };
}
