/**
 * The config file of the front doors (`dsh mcp`, `dsh run`, `dsh web`): the same keys as
 * `compose()`'s `config`, in JSON. In order, each over the one before: the front door's defaults;
 * the user's file (`--config FILE`, else `$DSH_CONFIG`, else `$XDG_CONFIG_HOME/dsh/config.json`
 * or `~/.config/dsh/config.json` when it exists); the workspace's `.dsh/config.json`, which may
 * only narrow (workspace-narrow.ts); the flags given. Each value's source is kept for
 * `--dump-config`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { DshError } from '@dsh/core';
import { type DshConfig, resolveDshConfig } from '../config.js';
import { narrowByWorkspace } from './workspace-narrow.js';

/** Longest config file read: a config is a few KiB; anything larger is a mistake. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/** The workspace file, relative to the workspace. */
export const WORKSPACE_CONFIG = join('.dsh', 'config.json');

/** A plain JSON object. */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The user's config file and whether it must exist (named by a flag or the environment). */
export function userConfigPath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { path: string; named: boolean } | null {
  if (flag) return { path: resolve(flag), named: true };
  if (env.DSH_CONFIG) return { path: resolve(env.DSH_CONFIG), named: true };
  const base =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(env.HOME || homedir(), '.config');
  const path = join(base, 'dsh', 'config.json');
  return existsSync(path) ? { path, named: false } : null;
}

function bad(path: string, message: string, field?: string): never {
  throw new DshError('INVALID_ARGUMENT', `${path}: ${message}`, { data: { file: path, ...(field ? { field } : {}) } });
}

/** `~/x` and paths relative to the file's directory, for the keys that hold one path. */
function placePaths(config: Obj, file: string): void {
  const home = process.env.HOME || homedir();
  const fix = (p: unknown): unknown =>
    typeof p !== 'string'
      ? p
      : p.startsWith('~/')
        ? join(home, p.slice(2))
        : isAbsolute(p)
          ? p
          : resolve(dirname(file), p);
  if (typeof config.workspace === 'string' && !isObj(config.world)) config.workspace = fix(config.workspace);
  for (const key of ['sessionLog', 'output'] as const) {
    const o = config[key];
    if (isObj(o) && typeof o.dir === 'string') o.dir = fix(o.dir);
  }
}

/**
 * Reads and checks a config file: JSON, an object, only `compose()`'s keys (an unknown key names
 * the nearest valid one), nothing that cannot be written in JSON (`approver`).
 * @throws DshError `INVALID_ARGUMENT` naming the file and the key.
 */
export function readConfigFile(path: string): DshConfig {
  let text: string;
  try {
    if (statSync(path).size > CONFIG_FILE_MAX_BYTES)
      bad(path, `is over ${CONFIG_FILE_MAX_BYTES} bytes; a config is small`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof DshError) throw error;
    return bad(path, `cannot be read (${(error as Error).message}); check the path, or unset DSH_CONFIG`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return bad(path, `is not JSON (${(error as Error).message})`);
  }
  if (!isObj(value)) return bad(path, 'must hold one JSON object of compose() config keys');
  const { $schema: _schema, ...config } = value;
  if ('approver' in config)
    bad(path, '"approver" is a function: it cannot be given in a file (use compose())', 'approver');
  placePaths(config, path);
  try {
    resolveDshConfig(config as DshConfig);
  } catch (error) {
    if (error instanceof DshError) {
      const field = (error.data as { field?: string } | undefined)?.field;
      throw new DshError('INVALID_ARGUMENT', `${path}: ${error.message.replace(/^compose (option|config) /, '')}`, {
        cause: error,
        data: { ...(error.data ?? {}), file: path, ...(field ? { field } : {}) },
      });
    }
    throw error;
  }
  return config as DshConfig;
}

/** `over` merged onto `base`: objects key by key, everything else replaced. */
export function mergeConfig(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = isObj(value) && isObj(out[key]) ? mergeConfig(out[key] as Obj, value) : value;
  }
  return out;
}

/** Records `source` for every leaf of `layer` (dotted paths). */
function noteSources(layer: Obj, source: string, sources: Record<string, string>, prefix = ''): void {
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObj(value) && key !== 'agents') noteSources(value, source, sources, path);
    else sources[path] = source;
  }
}

/** The config a front door composes, with where each value came from. */
export interface LayeredConfig {
  config: DshConfig;
  /** Dotted key → `default`, a file's path, or `flags`. */
  sources: Record<string, string>;
  /** The files read, in order. */
  files: string[];
}

/**
 * The front door's config: `defaults`, then the user's file, then the workspace's file (narrowing
 * only), then `flags`.
 * @throws DshError `INVALID_ARGUMENT` for a bad file or a workspace file that widens.
 */
export function layeredConfig(options: { defaults: DshConfig; flags: DshConfig; configFlag?: string }): LayeredConfig {
  const sources: Record<string, string> = {};
  const files: string[] = [];
  noteSources(options.defaults as Obj, 'default', sources);
  let config = options.defaults as Obj;
  const user = userConfigPath(options.configFlag);
  if (user) {
    if (!user.named || existsSync(user.path)) {
      const read = readConfigFile(user.path) as Obj;
      config = mergeConfig(config, read);
      noteSources(read, user.path, sources);
      files.push(user.path);
    } else bad(user.path, 'does not exist (named by --config or DSH_CONFIG)');
  }
  const workspace = (options.flags.workspace ?? (config.workspace as string | undefined)) || process.cwd();
  const wsFile =
    isObj(config.world) && (config.world as Obj).kind === 'remote' ? null : join(resolve(workspace), WORKSPACE_CONFIG);
  if (wsFile && existsSync(wsFile)) {
    const narrowing = narrowByWorkspace(config as DshConfig, readConfigFile(wsFile), wsFile) as Obj;
    config = mergeConfig(config, narrowing);
    noteSources(narrowing, wsFile, sources);
    files.push(wsFile);
  }
  config = mergeConfig(config, options.flags as Obj);
  noteSources(options.flags as Obj, 'flags', sources);
  return { config: config as DshConfig, sources, files };
}
