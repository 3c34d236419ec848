/**
 * Request → spec: fills every field from the config and clamps it. Malformed input is a typed
 * error naming the field; nothing is defaulted silently except what the config defines.
 */
import { isAbsolute } from 'node:path';
import { DshError } from '@dsh/core';
import { HostRules, type NetworkRules } from '@dsh/sandbox';
import type { ResolvedSandbox, ShellExecRequest, ShellExecSpec } from '@dsh/shell';
import { MAX_COLLECT_BYTES } from '@dsh/subprocess';
import type { ResolvedBashConfig } from './config.js';

const REQUEST_FIELDS = new Set([
  'command',
  'timeoutMs',
  'workdir',
  'stdin',
  'env',
  'stdoutMaxBytes',
  'dshEnv',
  'sandbox',
]);
const SANDBOX_MODES = new Set(['read-only', 'workspace-write', 'danger-full-access']);
/**
 * Longest command, in bytes: Linux refuses a single argument of 128 KiB or more (MAX_ARG_STRLEN,
 * counting its NUL) with E2BIG, and the command is one argument of `bash -c`.
 */
export const MAX_COMMAND_BYTES = 128 * 1024 - 1;

/** Names the managed namespace may carry; anything else belongs in `env`. */
const DSH_NAME = /^DSH_[A-Z0-9_]+$/;

function invalid(field: string, problem: string): never {
  throw new DshError('INVALID_ARGUMENT', `shell request field "${field}" ${problem}.`, { data: { field } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringRecord(value: unknown, field: string, allowUndefined: boolean): Record<string, string | undefined> {
  if (!isRecord(value)) invalid(field, 'must be an object of strings');
  for (const [name, v] of Object.entries(value)) {
    if (name === '' || name.includes('=') || name.includes('\0')) invalid(`${field}.${name}`, 'is not a valid name');
    if (v === undefined && allowUndefined) continue;
    if (typeof v !== 'string' || v.includes('\0')) invalid(`${field}.${name}`, 'must be a string without NUL');
  }
  return value as Record<string, string | undefined>;
}

function sandboxOf(value: unknown): ResolvedSandbox {
  if (!isRecord(value) || !SANDBOX_MODES.has(value.mode as string)) {
    invalid('sandbox.mode', "must be 'read-only', 'workspace-write' or 'danger-full-access'");
  }
  const roots = value.writableRoots;
  if (!Array.isArray(roots) || !roots.every((r) => typeof r === 'string' && isAbsolute(r))) {
    invalid('sandbox.writableRoots', 'must be an array of absolute paths');
  }
  if (typeof value.network !== 'boolean') invalid('sandbox.network', 'must be a boolean');
  if (value.scope !== undefined && typeof value.scope !== 'string') invalid('sandbox.scope', 'must be a string');
  const paths = (field: 'readableRoots' | 'denyRead' | 'unprotected'): string[] | undefined => {
    const list = value[field];
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((r) => typeof r === 'string' && isAbsolute(r))) {
      invalid(`sandbox.${field}`, 'must be an array of absolute paths');
    }
    return [...(list as string[])];
  };
  const count = (v: unknown, field: string): number | undefined => {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) invalid(field, 'must be a positive integer');
    return v as number;
  };
  const limits = value.limits;
  if (limits !== undefined && !isRecord(limits)) invalid('sandbox.limits', 'must be an object');
  const pids = count(isRecord(limits) ? limits.pids : undefined, 'sandbox.limits.pids');
  const memoryBytes = count(isRecord(limits) ? limits.memoryBytes : undefined, 'sandbox.limits.memoryBytes');
  const tmpBytes = count(value.tmpBytes, 'sandbox.tmpBytes');
  const optional: Partial<ResolvedSandbox> = {};
  for (const field of ['readableRoots', 'denyRead', 'unprotected'] as const) {
    const list = paths(field);
    if (list) optional[field] = list;
  }
  if (limits !== undefined) {
    optional.limits = {
      ...(pids !== undefined ? { pids } : {}),
      ...(memoryBytes !== undefined ? { memoryBytes } : {}),
    };
  }
  if (tmpBytes !== undefined) optional.tmpBytes = tmpBytes;
  if (value.privateHome !== undefined) {
    if (typeof value.privateHome !== 'boolean') invalid('sandbox.privateHome', 'must be a boolean');
    optional.privateHome = value.privateHome;
  }
  if (value.hosts !== undefined && value.hosts !== null) {
    if (!isRecord(value.hosts)) invalid('sandbox.hosts', 'must be { allow: [...], deny?, allowPrivate? }');
    optional.hosts = new HostRules(value.hosts as unknown as NetworkRules, 'sandbox.hosts').copy();
  }
  return {
    mode: value.mode as ResolvedSandbox['mode'],
    writableRoots: [...roots],
    network: value.network,
    ...optional,
    ...(typeof value.scope === 'string' ? { scope: value.scope } : {}),
  };
}

/**
 * Resolves a request against the config.
 * @throws DshError `INVALID_ARGUMENT` naming the field.
 */
export function resolveRequest(request: ShellExecRequest, config: ResolvedBashConfig): ShellExecSpec {
  if (!isRecord(request)) invalid('request', 'must be an object');
  for (const key of Object.keys(request)) if (!REQUEST_FIELDS.has(key)) invalid(key, 'is not a known field');
  const { command } = request;
  if (typeof command !== 'string' || command.trim() === '') invalid('command', 'must be a non-empty string');
  if (command.includes('\0')) invalid('command', 'must not contain a NUL byte');
  const bytes = Buffer.byteLength(command);
  if (bytes > MAX_COMMAND_BYTES) {
    invalid(
      'command',
      `is ${bytes} bytes, over the ${MAX_COMMAND_BYTES}-byte limit of one argument; write the script to a file first (in smaller pieces) and run the file`,
    );
  }
  let timeoutMs = config.timeoutMs;
  if (request.timeoutMs !== undefined) {
    const t = request.timeoutMs;
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0)
      invalid('timeoutMs', 'must be a positive number of milliseconds');
    timeoutMs = Math.min(Math.ceil(t), config.maxTimeoutMs);
  }
  const workdir = request.workdir ?? config.cwd;
  if (typeof workdir !== 'string' || !isAbsolute(workdir) || workdir.includes('\0')) {
    invalid('workdir', 'must be an absolute path');
  }
  if (request.stdin !== undefined && typeof request.stdin !== 'string') invalid('stdin', 'must be a string');
  let stdoutMaxBytes = config.maxOutputBytes;
  if (request.stdoutMaxBytes !== undefined) {
    const m = request.stdoutMaxBytes;
    if (typeof m !== 'number' || !Number.isSafeInteger(m) || m < 0 || m > MAX_COLLECT_BYTES) {
      invalid('stdoutMaxBytes', `must be an integer in [0, ${MAX_COLLECT_BYTES}]`);
    }
    stdoutMaxBytes = m;
  }
  const dshEnv = stringRecord(request.dshEnv ?? {}, 'dshEnv', false) as Record<string, string>;
  for (const name of Object.keys(dshEnv)) if (!DSH_NAME.test(name)) invalid(`dshEnv.${name}`, 'must be named DSH_*');
  return {
    command,
    workdir,
    timeoutMs,
    stdoutMaxBytes,
    stderrMaxBytes: config.maxOutputBytes,
    spillDir: config.spillDir,
    maxSpillBytes: config.maxSpillBytes,
    graceMs: config.graceMs,
    stdin: request.stdin ?? null,
    env: { ...stringRecord(request.env ?? {}, 'env', true) },
    dshEnv: { ...dshEnv },
    sandbox: request.sandbox === undefined ? null : sandboxOf(request.sandbox),
  };
}
