/**
 * Shared by the tests of the config file and of the CLI flags over it: `dsh ARGS` run with a
 * private HOME, and a workspace with a user config file and optionally a workspace file.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/support.js';
import { BIN } from './mcp/helpers.js';

/** `dsh ARGS` in `cwd` with a private HOME (and `env`). */
export function dsh(args: string[], cwd: string, env: Record<string, string> = {}) {
  const home = join(cwd, '..', 'home');
  mkdirSync(home, { recursive: true });
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A workspace with a user config file (`user`) and optionally a workspace file (`ws`). */
export function place(user: unknown, ws?: unknown): { dir: string; workspace: string; file: string } {
  const dir = tempDir('dsh-config-');
  const workspace = join(dir, 'ws');
  mkdirSync(join(workspace, '.dsh'), { recursive: true });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(user));
  if (ws !== undefined) writeFileSync(join(workspace, '.dsh', 'config.json'), JSON.stringify(ws));
  return { dir, workspace, file };
}
