/**
 * A composition of the real lower layers plus tool-bash, torn down after each test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bashLocalPlugin, type LocalBashConfig } from '@dsh/bash-local';
import { Composition, createOwner, type Owner, type ToolResult } from '@dsh/core';
import { jobsPlugin } from '@dsh/jobs';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { toolBashPlugin } from '@dsh/tool-bash';
import { afterEach } from 'vitest';

const open: Composition[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dsh-tool-test-'));
  dirs.push(d);
  return d;
}

export interface Rig {
  composition: Composition;
  workspace: string;
  agent: Owner;
  call(tool: string, args: unknown, agent?: Owner): Promise<ToolResult>;
}

export async function rig(shell: LocalBashConfig = {}): Promise<Rig> {
  const workspace = tempDir();
  const composition = await Composition.create([
    subprocessLocalPlugin(),
    bashLocalPlugin({ cwd: workspace, spillDir: join(workspace, '.spill'), graceMs: 200, ...shell }),
    jobsPlugin(),
    toolBashPlugin({ workspace }),
  ]);
  open.push(composition);
  const agent = createOwner('agent-1');
  return {
    composition,
    workspace,
    agent,
    call: (tool, args, who = agent) => composition.tools.call(who, tool, args),
  };
}

export async function waitFor<T>(check: () => T | Promise<T>, what = 'condition'): Promise<NonNullable<Awaited<T>>> {
  const until = Date.now() + 20_000;
  let delay = 5;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<Awaited<T>>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
