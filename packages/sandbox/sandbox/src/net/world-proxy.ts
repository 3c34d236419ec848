/**
 * The proxy of one world whose policy names hosts: its unix socket lives in a private directory
 * beside the fence's files (`<tmpdir>/dsh-<user>/net`), which no world sees (a world's `/tmp` is
 * its own); only this world gets it, bound at its own path inside.
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { DshError, ensurePrivateDir, sweepDeadDirs } from '@dsh/core';
import type { NetResolver } from './gate.js';
import { type NetRecord, NetworkProxy } from './proxy.js';
import { HostRules, type NetworkRules } from './rules.js';

/** A proxy socket's name: its maker's pid, then a random part. */
const SOCKET_NAME = /^(\d+)-[0-9a-f]+\.sock$/;
/** A unix socket's path at most (sun_path holds 108 bytes with its terminator). */
const UNIX_PATH_MAX = 107;

/** What a sandbox lets its worlds' proxies do beyond the rules. */
export interface NetworkHooks {
  /** Resolves names (tests map names to loopback servers). @default the machine's resolver */
  resolver?: NetResolver;
  /** Told of every connection of a world of `scope` (the session log records them). @default none */
  onRecord?: (scope: string, record: NetRecord) => void;
  /** Bytes each way at most per connection. @default null (no limit) */
  maxBytesPerConnection?: number | null;
}

/**
 * A listening proxy for a world of `scope` under `rules`.
 * @throws DshError `UNSAFE_DIRECTORY` when the socket directory is not private; `INVALID_ARGUMENT`
 * for rules that are not well formed; `SANDBOX_UNAVAILABLE` when the socket path is too long.
 */
export function worldProxy(
  rules: NetworkRules,
  fenceDir: string,
  scope: string,
  hooks: NetworkHooks,
): { proxy: NetworkProxy; socket: string } {
  const dir = join(dirname(fenceDir), 'net');
  ensurePrivateDir(dir, {
    what: 'The network proxy directory',
    remedy: 'set TMPDIR to a directory of your own, and retry',
  });
  sweepDeadDirs(dir, SOCKET_NAME); // sockets of a dsh that was killed
  const socket = join(dir, `${process.pid}-${randomBytes(8).toString('hex')}.sock`);
  if (Buffer.byteLength(socket) > UNIX_PATH_MAX) {
    throw new DshError(
      'SANDBOX_UNAVAILABLE',
      `The world's proxy socket path ${socket} is longer than a unix socket allows; set TMPDIR to a shorter directory, and retry.`,
      { data: { path: socket } },
    );
  }
  const proxy = new NetworkProxy({
    rules: new HostRules(rules),
    ...(hooks.resolver ? { resolver: hooks.resolver } : {}),
    ...(hooks.maxBytesPerConnection !== undefined ? { maxBytesPerConnection: hooks.maxBytesPerConnection } : {}),
    ...(hooks.onRecord ? { onRecord: (r: NetRecord) => hooks.onRecord?.(scope, r) } : {}),
    fixFor: (host, reason) =>
      reason === 'on the deny list'
        ? 'the deny list wins over every allow entry: only the person can change it; or ask for escalation'
        : reason.includes('private address')
          ? 'the name is allowed, its address is not: if that is meant (a mirror on the LAN), the person can set sandbox.network.allowPrivate or allow that address; or ask for escalation'
          : `to allow it, add --allow-host ${host} (or sandbox.network.allow in the config), or ask for escalation`,
  });
  proxy.listen(socket);
  return { proxy, socket };
}
