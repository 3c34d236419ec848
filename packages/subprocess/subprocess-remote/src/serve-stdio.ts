/**
 * Serving a `LocalSubprocessRuntime` on this process's stdin/stdout (the channel) until stdin
 * ends; then every tree it started is ended. stdout carries nothing but frames; diagnostics go
 * to stderr. `server-entry.ts` runs it as a program; `dsh runtime serve --stdio` is its CLI face.
 */
import type { Readable, Writable } from 'node:stream';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { RuntimeServer } from './server.js';

/** Serves a local runtime on this process's stdio; resolves when the channel ended and every tree is gone. */
export async function serveRuntimeStdio(
  options: {
    containment?: 'auto' | 'session';
    info?: Record<string, unknown>;
    /** The channel's streams, when they are not this process's stdin and stdout. @default stdio */
    channel?: { input: Readable; output: Writable };
    /** Entries set for every command after the request's own. @default {} */
    forcedEnv?: Readonly<Record<string, string>>;
  } = {},
) {
  // Anything printed by accident must not corrupt the channel.
  console.log = console.error;
  console.info = console.error;
  const runtime = new LocalSubprocessRuntime({ containment: options.containment ?? 'auto' });
  const server = new RuntimeServer(
    runtime,
    options.channel?.input ?? process.stdin,
    options.channel?.output ?? process.stdout,
    options.info ?? {},
    options.forcedEnv ?? {},
  );
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void server.shutdown());
  await server.closed;
}
