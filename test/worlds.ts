/**
 * The execution world a test suite runs in. `DSH_TEST_WORLD=channel` runs the same tests against
 * a `RemoteSubprocessRuntime` whose channel reaches a runtime server on this machine (the
 * `channel` vitest project does this for the contract-level suites); `DSH_TEST_WORLD=ssh` reaches
 * it through a real sshd on loopback (the `ssh` project: subprocess, shell and terminal suites);
 * the default is the local provider itself.
 */
import { tmpdir } from 'node:os';
import { type Plugin, persistentServicePlugin } from '@dsh/core';
import { type SubprocessRuntime, scrubbedParentEnv, shellQuote } from '@dsh/subprocess';
import {
  LocalSubprocessRuntime,
  type LocalSubprocessRuntimeOptions,
  subprocessLocalPlugin,
} from '@dsh/subprocess-local';
import { connectChannel, SERVER_ENTRY } from '@dsh/subprocess-remote';
import { inject } from 'vitest';

/** The world of this test run. */
export const TEST_WORLD: 'local' | 'channel' | 'ssh' =
  process.env.DSH_TEST_WORLD === 'channel' ? 'channel' : process.env.DSH_TEST_WORLD === 'ssh' ? 'ssh' : 'local';

/** What the suites need of a runtime beyond the contract. */
export type TestRuntime = SubprocessRuntime & { readonly trackedCount: number };

/** A runtime of the test world; `dispose()` also ends the channel and its host runtime. */
export function worldRuntime(options: LocalSubprocessRuntimeOptions = {}): TestRuntime {
  if (TEST_WORLD === 'local') return new LocalSubprocessRuntime(options);
  const host = new LocalSubprocessRuntime({ containment: 'session' });
  const server = [process.execPath, SERVER_ENTRY, '--containment', options.containment ?? 'auto'];
  // ssh forwards no environment: the far side gets what a local child of the host would (the
  // scrubbed parent environment, or the runtime's own parent environment) with `env -i`.
  const forwarded = options.parentEnv ?? scrubbedParentEnv();
  const remoteEnv = [
    'env',
    '-i',
    ...Object.entries(forwarded).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`])),
  ];
  const argv =
    TEST_WORLD === 'ssh' ? [...inject('sshArgv'), [...remoteEnv, ...server].map(shellQuote).join(' ')] : server;
  // A parent environment of the runtime's own becomes the server's whole environment.
  const env: Record<string, string | undefined> = {};
  if (options.parentEnv && TEST_WORLD === 'channel') {
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

/** A plugin that mounts a runtime of the test world as `ctx.subprocess` (for composition-level suites). */
export function worldPlugin(options: LocalSubprocessRuntimeOptions = {}): Plugin {
  if (TEST_WORLD === 'local') return subprocessLocalPlugin(options);
  return persistentServicePlugin({
    name: 'subprocess-local',
    key: 'subprocess',
    create: () => worldRuntime(options),
    dispose: (runtime) => runtime.dispose(),
  });
}
