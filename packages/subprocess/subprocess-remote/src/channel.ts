/**
 * Starting a channel: any argv whose stdio reaches a runtime server (`ssh -T host …`,
 * `docker exec -i ctr …`, a bubblewrap fence around the server, or the server itself), started
 * through a `SubprocessRuntime` with raw pipes — the transport is itself a protocol back end.
 * Its stderr is kept as a bounded tail, so a channel that fails says why.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { settleWithin } from '@dsh/core';
import type { SubprocessHandle, SubprocessRuntime } from '@dsh/subprocess';
import { RemoteSubprocessRuntime } from './remote-runtime.js';

/** The server program on this machine: the single-file bundle when built, else the module entry. */
export const SERVER_ENTRY: string = (() => {
  const bundle = fileURLToPath(new URL('../dist/runtime-server.mjs', import.meta.url));
  return existsSync(bundle) ? bundle : fileURLToPath(new URL('../dist/server-entry.js', import.meta.url));
})();

/** A channel's stderr kept for the loss message: enough for an error, bounded. */
export const CHANNEL_STDERR_TAIL_BYTES = 16 * 1024;

/** Options of {@link connectChannel}. */
export interface ChannelOptions {
  /** Working directory of the channel process. */
  cwd: string;
  /** Environment entries of the channel process (over the runtime's scrubbed parent environment). @default {} */
  env?: Record<string, string | undefined>;
  /** SIGTERM → grace → SIGKILL when the channel process is ended. @default 2000 */
  graceMs?: number;
  /** How a loss names the channel (a remote world: the argv the person gave). @default its program */
  label?: string;
}

/** Characters of a channel's argv a loss message names at most. */
const CHANNEL_LABEL_MAX_CHARS = 200;

/**
 * Starts `argv` through `via` and talks the runtime protocol over its stdin and stdout. The
 * world it reaches (a sandbox world, say) sees this machine's files when `via`'s world does.
 */
export function connectChannel(
  argv: readonly string[],
  via: SubprocessRuntime,
  options: ChannelOptions,
): RemoteSubprocessRuntime {
  return runtimeOver(startChannel(argv, via, options), argv, options, via.sharesFilesystem);
}

/** Starts the channel process: raw stdin and stdout, a bounded stderr tail. */
export function startChannel(
  argv: readonly string[],
  via: SubprocessRuntime,
  options: ChannelOptions,
): SubprocessHandle {
  return via.spawn({
    argv,
    cwd: options.cwd,
    env: options.env ?? {},
    stdin: { kind: 'pipe' },
    stdout: { kind: 'pipe' },
    stderr: { kind: 'collect', maxBytes: CHANNEL_STDERR_TAIL_BYTES },
    graceMs: options.graceMs ?? 2_000,
  });
}

/** Why a channel process ended, with the tail of what it said on stderr. */
export async function channelEnded(handle: SubprocessHandle, program: string | undefined): Promise<string> {
  const outcome = await handle.exit;
  // The world the channel ran through was lost first: that loss is the cause, told once.
  if (outcome.error?.code === 'WORLD_DISCONNECTED') return outcome.error.message;
  const how = outcome.error
    ? `${outcome.error.code}: ${outcome.error.message}`
    : outcome.signal
      ? `killed by ${outcome.signal}`
      : `exit code ${outcome.exitCode}`;
  const said = handle.stderrReader?.read(0).text.trim() ?? '';
  return `the channel process ${program} ended (${how})${said ? `: ${said.slice(-2_000)}` : ''}`;
}

/** The runtime over a started channel process; disposing it ends the process. */
export function runtimeOver(
  handle: SubprocessHandle,
  argv: readonly string[],
  options: ChannelOptions,
  sharesFilesystem = true,
): RemoteSubprocessRuntime {
  return new RemoteSubprocessRuntime({
    sharesFilesystem,
    input: handle.stdout as NonNullable<typeof handle.stdout>,
    output: handle.stdin as NonNullable<typeof handle.stdin>,
    reason: () => channelEnded(handle, (options.label ?? argv[0] ?? '').slice(0, CHANNEL_LABEL_MAX_CHARS)),
    release: async () => {
      handle.stdin?.end();
      // The channel ends on its own once the server saw its stdin close; past the grace it is ended.
      await settleWithin(handle.exit, options.graceMs ?? 2_000, () => undefined);
      await handle.terminate();
    },
  });
}
