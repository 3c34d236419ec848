/**
 * Network by name (issue 24): which hosts a world may reach through its proxy. An entry is a host
 * name (`registry.npmjs.org`), a wildcard of one label or more (`*.githubusercontent.com`, never
 * the bare `githubusercontent.com`), an IP address, any of them with `:port`; deny wins over allow.
 * Names are compared lower-cased without a trailing dot.
 */
import { isIP } from 'node:net';
import { DshError } from '@dsh/core';

/** The network of a world whose policy names hosts. */
export interface NetworkRules {
  /** Entries a command may reach (host, `*.domain`, IP, each optionally `:port`). */
  allow: readonly string[];
  /** Entries refused even when an allow entry matches. @default [] */
  deny?: readonly string[];
  /**
   * Names that resolve to a private, loopback or link-local address may be reached (otherwise only
   * an entry naming that address literally allows it). @default false
   */
  allowPrivate?: boolean;
}

/** Entries at most in one list (each is checked on every connection). */
export const NETWORK_RULES_MAX = 512;
/** A host name's length at most (DNS). */
const HOST_MAX = 253;
/** One DNS label: letters, digits, hyphens and underscores (`_` appears in real service names). */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** One parsed entry. */
interface Entry {
  /** The host (lower case), or the domain after `*.` for a wildcard. */
  host: string;
  wildcard: boolean;
  /** The port, or null for any. */
  port: number | null;
}

/** `host` lower-cased, without brackets or a trailing dot. */
export function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) return h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Whether `host` is a well-formed name or IP address. */
export function validHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  if (host.length === 0 || host.length > HOST_MAX) return false;
  return host.split('.').every((label) => LABEL.test(label));
}

function parseEntry(raw: string): Entry | null {
  let text = raw.trim().toLowerCase();
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1] as string;
    port = bracketed[2] === undefined ? null : Number(bracketed[2]);
  } else if (isIP(text) !== 6) {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      if (!/^\d{1,5}$/.test(text.slice(colon + 1))) return null;
      port = Number(text.slice(colon + 1));
      text = text.slice(0, colon);
    }
  }
  if (port !== null && (port < 1 || port > 65535)) return null;
  const wildcard = text.startsWith('*.');
  const host = normalizeHost(wildcard ? text.slice(2) : text);
  if (wildcard && (isIP(host) !== 0 || !host.includes('.'))) return null; // `*.com` would be the world
  if (!validHost(host)) return null;
  return { host, wildcard, port };
}

function matches(entry: Entry, host: string, port: number): boolean {
  if (entry.port !== null && entry.port !== port) return false;
  return entry.wildcard ? host.endsWith(`.${entry.host}`) : host === entry.host;
}

/** Checked rules: decide one destination at a time. */
export class HostRules {
  private readonly allowed: Entry[];
  private readonly denied: Entry[];
  readonly allowPrivate: boolean;

  /** @throws DshError `INVALID_ARGUMENT` naming `field` and the entry that is not well formed. */
  constructor(
    readonly rules: NetworkRules,
    field = 'sandbox.network',
  ) {
    const parse = (list: unknown, key: 'allow' | 'deny'): Entry[] => {
      if (list === undefined && key === 'deny') return [];
      if (!Array.isArray(list) || list.length > NETWORK_RULES_MAX) {
        throw new DshError(
          'INVALID_ARGUMENT',
          `${field}.${key} must be a list of at most ${NETWORK_RULES_MAX} host entries.`,
          { data: { field: `${field}.${key}` } },
        );
      }
      return list.map((raw) => {
        const entry = typeof raw === 'string' ? parseEntry(raw) : null;
        if (!entry) {
          throw new DshError(
            'INVALID_ARGUMENT',
            `${field}.${key} entry ${JSON.stringify(raw)} is not a host: use a name (registry.npmjs.org), a wildcard (*.example.com), an IP address, each optionally with :port.`,
            { data: { field: `${field}.${key}`, entry: raw } },
          );
        }
        return entry;
      });
    };
    this.allowed = parse(rules.allow, 'allow');
    this.denied = parse(rules.deny, 'deny');
    if (rules.allowPrivate !== undefined && typeof rules.allowPrivate !== 'boolean') {
      throw new DshError('INVALID_ARGUMENT', `${field}.allowPrivate must be a boolean.`, {
        data: { field: `${field}.allowPrivate` },
      });
    }
    this.allowPrivate = rules.allowPrivate ?? false;
  }

  /** A plain copy of the checked rules (its own arrays, not the caller's). */
  copy(): NetworkRules {
    const { allow, deny, allowPrivate } = this.rules;
    return {
      allow: [...allow],
      ...(deny ? { deny: [...deny] } : {}),
      ...(allowPrivate !== undefined ? { allowPrivate } : {}),
    };
  }

  /** Whether a connection to `host:port` may be made, and if not, why (a phrase a model reads). */
  decide(rawHost: string, port: number): { allowed: true } | { allowed: false; reason: string } {
    const host = normalizeHost(rawHost);
    if (!validHost(host)) return { allowed: false, reason: 'not a valid host name' };
    if (this.denied.some((e) => matches(e, host, port))) return { allowed: false, reason: 'on the deny list' };
    if (this.allowed.some((e) => matches(e, host, port))) return { allowed: true };
    return { allowed: false, reason: 'not in the allow list' };
  }

  /** Whether an allow entry names `address` itself, at `port` where it names one (so a private address is meant). */
  namesAddress(address: string, port: number): boolean {
    const a = normalizeHost(address);
    return this.allowed.some((e) => !e.wildcard && e.host === a && (e.port === null || e.port === port));
  }
}
