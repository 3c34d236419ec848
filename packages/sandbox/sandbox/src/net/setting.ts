/**
 * The network setting of a composition, as a person writes it: `false` (none), `true` (all of
 * it), or the hosts a world reaches by name, `{ allow, deny?, allowPrivate?, pin? }`. `pin` maps a
 * name to the `address:port` the proxy connects to for it, without DNS (a mirror, or a test's
 * stand-in for a remote host); a pinned target is the person's own choice and is not checked as
 * private. Pinning a name does not allow it: it must be on the allow list too.
 */
import { isIP } from 'node:net';
import { DshError } from '@dsh/core';
import { mapResolver, type NetResolver, systemResolver } from './gate.js';
import { HostRules, type NetworkRules, normalizeHost, validHost } from './rules.js';

/** Hosts by name, with pins. */
export interface NetworkHostsSetting extends NetworkRules {
  /** Names the proxy connects to at a fixed `address:port` (no DNS). @default {} */
  pin?: Readonly<Record<string, string>>;
}

/** The network setting: none, all, or hosts by name. */
export type NetworkSetting = boolean | NetworkHostsSetting;

const KEYS = new Set(['allow', 'deny', 'allowPrivate', 'pin']);

function invalid(field: string, problem: string): never {
  throw new DshError('INVALID_ARGUMENT', `${field} ${problem}.`, { data: { field } });
}

/**
 * `value` checked as a network setting (a copy).
 * @throws DshError `INVALID_ARGUMENT` naming the field that is wrong.
 */
export function checkNetworkSetting(value: unknown, field = 'sandbox.network'): NetworkSetting {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalid(field, 'must be true, false or { allow: ["host", …], deny?, allowPrivate?, pin? }');
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key))
      invalid(`${field}.${key}`, 'is not a key of the network setting (allow, deny, allowPrivate, pin)');
  }
  const v = value as NetworkHostsSetting;
  const checked = new HostRules(v, field).copy();
  const pin: Record<string, string> = {};
  if (v.pin !== undefined) {
    if (typeof v.pin !== 'object' || v.pin === null || Array.isArray(v.pin))
      invalid(`${field}.pin`, 'must be an object of name: "address:port"');
    for (const [name, to] of Object.entries(v.pin)) {
      const m = typeof to === 'string' ? /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(to) : null;
      const address = m ? normalizeHost(m[1] as string) : '';
      const port = m ? Number(m[2]) : 0;
      if (!validHost(normalizeHost(name)) || !m || isIP(address) === 0 || port < 1 || port > 65535) {
        invalid(`${field}.pin.${name}`, 'must map a host name to "address:port" (an IP address and a port)');
      }
      pin[normalizeHost(name)] = `${address}:${port}`;
    }
  }
  return { ...checked, ...(Object.keys(pin).length > 0 ? { pin } : {}) };
}

/** The resolver of a setting: its pins first, then the machine's resolver. */
export function settingResolver(setting: NetworkSetting): NetResolver {
  const pin = typeof setting === 'object' ? setting.pin : undefined;
  if (!pin || Object.keys(pin).length === 0) return systemResolver;
  const pinned = mapResolver(pin);
  return (host, port) => (Object.hasOwn(pin, normalizeHost(host)) ? pinned(host, port) : systemResolver(host, port));
}
