/**
 * `dsh config schema` (the config file's JSON Schema) and `dsh config check [FILE]`: reads a
 * config file the way the front doors do (the user's file when none is named, and the
 * workspace's `.dsh/config.json` of the current directory) and says what is wrong, naming the key.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDshError } from '@dsh/core';
import { readConfigFile, userConfigPath, WORKSPACE_CONFIG } from './config-file.js';
import { CONFIG_SCHEMA } from './config-schema.js';
import { EXIT_INTERNAL } from './exit-codes.js';
import { narrowByWorkspace } from './workspace-narrow.js';

/** Prints the JSON Schema. */
export function schemaCommand(): number {
  process.stdout.write(`${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`);
  return 0;
}

/** Checks `file`, or the files the front doors would read here. */
export function checkCommand(file: string | undefined): number {
  const user = file ? { path: file } : userConfigPath(undefined);
  const ws = join(process.cwd(), WORKSPACE_CONFIG);
  if (!user && !existsSync(ws)) {
    process.stdout.write(
      `No config file here: name one, set DSH_CONFIG, or write ~/.config/dsh/config.json (dsh config schema prints its schema).\n`,
    );
    return 0;
  }
  try {
    const config = user ? readConfigFile(user.path) : {};
    if (user) process.stdout.write(`${user.path}: ok\n`);
    if (!file && existsSync(ws)) {
      narrowByWorkspace(config, readConfigFile(ws), ws);
      process.stdout.write(`${ws}: ok (narrows only)\n`);
    }
    return 0;
  } catch (error) {
    if (!isDshError(error)) throw error;
    process.stderr.write(`dsh config check: ${error.message}\n`);
    return EXIT_INTERNAL;
  }
}
