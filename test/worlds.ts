/**
 * The execution world a test suite runs in. `DSH_TEST_WORLD=channel` runs the same tests against
 * a `RemoteSubprocessRuntime` whose channel reaches a runtime server on this machine (the
 * `channel` vitest project does this for the contract-level suites); the default is the local
 * provider itself.
 */
import { tmpdir } from 'node:os';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { LocalSubprocessRuntime, type LocalSubprocessRuntimeOptions } from '@dsh/subprocess-local';
import { connectChannel, SERVER_ENTRY } from '@dsh/subprocess-remote';

/** The world of this test run. */
export const TEST_WORLD: 'local' | 'channel' = process.env.DSH_TEST_WORLD === 'channel' ? 'channel' : 'local';

/** What the suites need of a runtime beyond the contract. */
export type TestRuntime = SubprocessRuntime & { readonly trackedCount: number };

/** A runtime of the test world; `dispose()` also ends the channel and its host runtime. */
export function worldRuntime(options: LocalSubprocessRuntimeOptions = {}): TestRuntime {
  if (TEST_WORLD === 'local') return new LocalSubprocessRuntime(options);
  const host = new LocalSubprocessRuntime({ containment: 'session' });
  const argv = [process.execPath, SERVER_ENTRY, '--containment', options.containment ?? 'auto'];
  // A parent environment of the runtime's own becomes the server's whole environment.
  const env: Record<string, string | undefined> = {};
  if (options.parentEnv) {
    for (const name of Object.keys(process.env)) env[name] = undefined;
    Object.assign(env, options.parentEnv);
  }
  const remote = connectChannel(argv, host, { cwd: tmpdir(), env });
  const dispose = remote.dispose.bind(remote);
  remote.dispose = async () => {
    await dispose();
    await host.dispose();
  };
  return remote;
}
