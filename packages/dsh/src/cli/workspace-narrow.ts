/**
 * A workspace's `.dsh/config.json` may only narrow what the user's own config allows: a
 * repository someone else wrote must not widen the fence of the agent working in it. It may ask
 * for a stricter sandbox mode, turn the network off (or down to some of the hosts in force), hide more paths (`denyRead` is added to),
 * and lower limits and deadlines; any other key (agents, worlds, writable paths, the log, the
 * output place) is refused, naming the key and where it belongs.
 */

import { DEFAULT_MAX_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '@dsh/bash-local';
import { DshError } from '@dsh/core';
import {
  checkNetworkSetting,
  DEFAULT_DENY_READ,
  defaultWorldLimits,
  isWider,
  type NetworkSetting,
  type SandboxMode,
  WORLD_TMP_BYTES,
} from '@dsh/sandbox';
import type { DshConfig } from '../config.js';

/** The keys a workspace file may set, by section. */
const NARROWING: Readonly<Record<string, readonly string[]>> = {
  sandbox: ['mode', 'network', 'denyRead', 'limits', 'tmpBytes'],
  shell: ['timeoutMs', 'maxTimeoutMs'],
};

function refuse(file: string, field: string, why: string): never {
  throw new DshError(
    'INVALID_ARGUMENT',
    `${file}: "${field}" ${why}; a workspace file may only narrow (stricter sandbox.mode, sandbox.network false, more sandbox.denyRead, lower limits and deadlines): put it in your own config file (~/.config/dsh/config.json) or pass a flag.`,
    { data: { file, field } },
  );
}

/** `value` must not be above `ceiling` (null: no ceiling). */
function atMost(file: string, field: string, value: unknown, ceiling: number | null): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) refuse(file, field, 'must be a number');
  if (ceiling !== null && value > ceiling) refuse(file, field, `is ${value}, above the ${ceiling} allowed`);
  return value;
}

/**
 * The narrowing `ws` asks for, checked against `effective` (defaults and the user's file).
 * @throws DshError `INVALID_ARGUMENT` naming the key that would widen or is not allowed.
 */
export function narrowByWorkspace(effective: DshConfig, ws: DshConfig, file: string): DshConfig {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [section, value] of Object.entries(ws as Record<string, unknown>)) {
    const allowed = NARROWING[section];
    if (!allowed) refuse(file, section, 'is not allowed in a workspace file');
    for (const key of Object.keys(value as Record<string, unknown>)) {
      if (!allowed.includes(key)) refuse(file, `${section}.${key}`, 'is not allowed in a workspace file');
    }
    out[section] = {};
  }
  const sandbox = ws.sandbox ?? {};
  const had = effective.sandbox ?? {};
  if (sandbox.mode !== undefined) {
    const current: SandboxMode = had.mode ?? 'workspace-write';
    if (isWider(sandbox.mode, current)) refuse(file, 'sandbox.mode', `is ${sandbox.mode}, wider than ${current}`);
    (out.sandbox as Record<string, unknown>).mode = sandbox.mode;
  }
  if (sandbox.network !== undefined) {
    const why = networkWidening(
      checkNetworkSetting(sandbox.network, `${file}: sandbox.network`),
      checkNetworkSetting(had.network ?? false),
    );
    if (why) refuse(file, 'sandbox.network', why);
    (out.sandbox as Record<string, unknown>).network = withDenied(sandbox.network, had.network ?? false);
  }
  if (sandbox.denyRead !== undefined) {
    // Added to the list in force (the default list when none was given): never a shorter one.
    (out.sandbox as Record<string, unknown>).denyRead = [...(had.denyRead ?? DEFAULT_DENY_READ), ...sandbox.denyRead];
  }
  if (sandbox.limits !== undefined) {
    const defaults = defaultWorldLimits();
    const limits: Record<string, number> = {};
    for (const [key, value] of Object.entries(sandbox.limits)) {
      const k = key as 'pids' | 'memoryBytes';
      const current = had.limits?.[k];
      limits[k] = atMost(
        file,
        `sandbox.limits.${k}`,
        value,
        current === null ? null : (current ?? defaults[k] ?? null),
      );
    }
    (out.sandbox as Record<string, unknown>).limits = limits;
  }
  if (sandbox.tmpBytes !== undefined) {
    (out.sandbox as Record<string, unknown>).tmpBytes = atMost(
      file,
      'sandbox.tmpBytes',
      sandbox.tmpBytes,
      had.tmpBytes ?? WORLD_TMP_BYTES,
    );
  }
  const shell = ws.shell ?? {};
  const deadlines = { timeoutMs: DEFAULT_TIMEOUT_MS, maxTimeoutMs: DEFAULT_MAX_TIMEOUT_MS } as const;
  for (const [key, fallback] of Object.entries(deadlines) as [keyof typeof deadlines, number][]) {
    if (shell[key] === undefined) continue;
    (out.shell as Record<string, unknown>)[key] = atMost(
      file,
      `shell.${key}`,
      shell[key],
      effective.shell?.[key] ?? fallback,
    );
  }
  return out as DshConfig;
}

/**
 * Why the workspace's network setting would widen the one in force, or null when it narrows:
 * `false` always narrows; hosts by name narrow the whole network, or a list they are a part of
 * (every allow entry and pin already there, allowPrivate not turned on; deny entries may be added).
 */
function networkWidening(ws: NetworkSetting, had: NetworkSetting): string | null {
  if (ws === false) return null;
  if (ws === true) return had === true ? null : 'would turn the network on';
  if (had === true) return null;
  if (had === false) return 'would turn the network on for the hosts it names';
  const extra = ws.allow.find((entry) => !had.allow.includes(entry));
  if (extra !== undefined) return `would allow ${extra}, which the network setting in force does not`;
  if (ws.allowPrivate === true && had.allowPrivate !== true) return 'would allow private addresses';
  const pin = Object.entries(ws.pin ?? {}).find(([name, to]) => had.pin?.[name] !== to);
  if (pin) return `would pin ${pin[0]}, which the network setting in force does not`;
  return null;
}

/** The workspace's hosts with the deny list in force kept (a workspace adds to it, never shortens it). */
function withDenied(ws: NetworkSetting, had: NetworkSetting): NetworkSetting {
  if (typeof ws !== 'object' || typeof had !== 'object' || !had.deny?.length) return ws;
  return { ...ws, deny: [...new Set([...had.deny, ...(ws.deny ?? [])])] };
}
