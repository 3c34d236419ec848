/**
 * A remote world (DESIGN §15): a channel argv (`ssh -T host`, `docker exec -i ctr`, `kubectl exec
 * -i pod --`) with the boot step appended, started through the local runtime with raw pipes. The
 * far side needs Node.js ≥ 20 and a POSIX sh; when it has no runtime server of this build cached,
 * the payload is sent over the same pipes first. Then the channel speaks the runtime protocol.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DshError } from '@dsh/core';
import type { SubprocessHandle, SubprocessRuntime } from '@dsh/subprocess';
import { BOOT_TAG, bootArgv } from './boot-script.js';
import { type ChannelOptions, channelEnded, runtimeOver, startChannel } from './channel.js';
import type { RemoteSubprocessRuntime } from './remote-runtime.js';
import type { ServerInfo } from './server.js';

/** How long a channel may take to connect, boot and answer `hello` (ssh handshakes, cold caches). */
export const BOOT_TIMEOUT_MS = 60_000;
/** Bytes a channel may print before its first boot line (a login banner, an rc file's echo). */
const MAX_BOOT_NOISE_BYTES = 64 * 1024;

/** The payload this build sends: the server bundle and node-pty, with its hash. */
function payload(): { hash: string; bytes: Buffer } {
  const at = (name: string) => fileURLToPath(new URL(`../dist/${name}`, import.meta.url));
  if (!existsSync(at('runtime-payload.json'))) {
    throw new DshError('WORLD_UNAVAILABLE', 'The runtime payload is not built; run `npm run build` first.');
  }
  const { hash } = JSON.parse(readFileSync(at('runtime-payload.json'), 'utf8')) as { hash: string };
  return { hash, bytes: readFileSync(at('runtime-payload.bin')) };
}

/** Options of {@link connectWorld}. */
export interface WorldOptions extends ChannelOptions {
  /** Path of Node.js on the far side. @default the first `node` (or `nodejs`) on its PATH */
  node?: string;
  /** Tree tracking of the far side's runtime. @default 'auto' */
  containment?: 'auto' | 'session';
  /** Whether the channel joins its remote argv into one shell string. @default true for `ssh` */
  joinsArgv?: boolean;
  /** How long connect, boot and `hello` may take. @default BOOT_TIMEOUT_MS */
  bootTimeoutMs?: number;
}

/** A connected remote world. */
export interface ConnectedWorld {
  runtime: RemoteSubprocessRuntime;
  /** The server's self-description (OS, Node version, user, home, the sandbox runner there). */
  info: ServerInfo;
  /** Whether the payload was sent (`'sent'`) or found in the far side's cache (`'cached'`). */
  boot: 'sent' | 'cached';
  /** Connect → `hello` answered, in ms. */
  connectMs: number;
}

/**
 * Connects to a remote world over `connect`.
 * @throws DshError `INVALID_ARGUMENT` (bad argv), `WORLD_UNAVAILABLE` (the channel did not start,
 *   the far side has no usable Node.js, boot failed or timed out), as rejections.
 */
export async function connectWorld(
  connect: readonly string[],
  via: SubprocessRuntime,
  options: WorldOptions,
): Promise<ConnectedWorld> {
  if (!Array.isArray(connect) || connect.length === 0 || connect.some((w) => typeof w !== 'string' || w === '')) {
    throw new DshError(
      'INVALID_ARGUMENT',
      'connect must be a non-empty argv of non-empty strings, e.g. ["ssh", "-T", "host"].',
      {
        data: { field: 'connect' },
      },
    );
  }
  const started = Date.now();
  const limit = options.bootTimeoutMs ?? BOOT_TIMEOUT_MS;
  const { hash, bytes } = payload();
  const argv = bootArgv(connect, hash, ['--containment', options.containment ?? 'auto', '--probe-sandbox'], {
    ...(options.node ? { node: options.node } : {}),
    ...(options.joinsArgv !== undefined ? { joined: options.joinsArgv } : {}),
  });
  const handle = startChannel(argv, via, options);
  let boot: 'sent' | 'cached';
  try {
    boot = await handshake(handle, bytes, connect, limit);
  } catch (error) {
    await handle.terminate();
    throw error;
  }
  const runtime = runtimeOver(handle, connect, { ...options, label: connect.join(' ') }, false);
  handle.stdout?.resume(); // paused by the handshake until the runtime listened
  // A far side that never answers: end the channel process (a dispose would wait on it).
  const timer = setTimeout(() => void handle.terminate(), limit);
  try {
    const info = await runtime.ready;
    return { runtime, info, boot, connectMs: Date.now() - started };
  } catch (error) {
    await runtime.dispose();
    throw unavailable(`the runtime server did not answer (${(error as Error).message})`, connect);
  } finally {
    clearTimeout(timer);
  }
}

function unavailable(why: string, connect: readonly string[]): DshError {
  return new DshError(
    'WORLD_UNAVAILABLE',
    `Could not reach the world over \`${connect.join(' ')}\`: ${why}. Check that the command works on its own (e.g. \`${connect.join(' ')} node --version\`).`,
    { data: { connect: [...connect] } },
  );
}

/** Reads boot lines until `ready`; sends the payload when asked. Bytes after `ready` are put back. */
function handshake(
  handle: SubprocessHandle,
  bytes: Buffer,
  connect: readonly string[],
  limit: number,
): Promise<'sent' | 'cached'> {
  const out = handle.stdout as NonNullable<typeof handle.stdout>;
  const input = handle.stdin as NonNullable<typeof handle.stdin>;
  input.on('error', () => undefined); // a channel that died is told by its exit
  return new Promise((resolve, reject) => {
    let seen = Buffer.alloc(0);
    const finish = (error: DshError | null, how?: 'sent' | 'cached', rest?: Buffer) => {
      clearTimeout(timer);
      out.off('data', onData);
      out.off('end', onEnd);
      if (error) return reject(error);
      out.pause();
      if (rest && rest.length > 0) out.unshift(rest);
      resolve(how as 'sent' | 'cached');
    };
    let noise = 0;
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      noise += chunk.length;
      for (;;) {
        const nl = seen.indexOf(10);
        if (nl < 0) break;
        const line = seen.subarray(0, nl).toString('utf8').replace(/\r$/, '');
        seen = seen.subarray(nl + 1);
        // A banner or an rc file's output may come first, even on the boot line itself.
        const at = line.indexOf(`${BOOT_TAG} `);
        if (at < 0) continue;
        const [word, ...rest] = line.slice(at + BOOT_TAG.length + 1).split(' ');
        if (word === 'need') {
          input.write(String(bytes.length).padEnd(16, ' '));
          input.write(bytes);
        } else if (word === 'ready') return finish(null, rest[0] === 'sent' ? 'sent' : 'cached', seen);
        else if (word === 'error') return finish(unavailable(rest.join(' '), connect));
      }
      if (noise > MAX_BOOT_NOISE_BYTES)
        finish(unavailable('it printed too much before the runtime server started', connect));
    };
    const onEnd = () => {
      void channelEnded(handle, connect[0]).then((why) => finish(unavailable(why, connect)));
    };
    const timer = setTimeout(() => finish(unavailable(`no answer within ${limit / 1000} s`, connect)), limit);
    out.on('data', onData);
    out.once('end', onEnd);
  });
}
