/**
 * Per-world limits when dsh runs as an ordinary user on a host that delegates it no cgroup
 * (issue 19, item 7): the process count is bounded in the world's own user namespace, the
 * world's memory is summed and bounded from the host, and each hit is told where the model reads
 * it. Runs the real `dsh run` as the red-team suite's user (created when missing, as root).
 */
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseShellResult } from 'dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, installBundle } from './redteam/harness/bundle.js';
import { collect, start } from './redteam/harness/spawn.js';
import { ensureFenceUser, type FenceUser } from './redteam/harness/users.js';

let user: FenceUser;
let bundle: Bundle;
let root: string;
let workspace: string;
let config: string;

beforeAll(() => {
  user = ensureFenceUser();
  root = mkdtempSync('/var/tmp/dsh-user-limits-');
  chmodSync(root, 0o755);
  bundle = installBundle(join(root, 'dsh'));
  writeFileSync(
    join(root, 'config.json'),
    JSON.stringify({ sandbox: { limits: { pids: 64, memoryBytes: 256 * 2 ** 20 } } }),
  );
  config = join(root, 'config.json');
  chmodSync(config, 0o644);
  const ws = mkdtempSync(join(root, 'ws-'));
  chownSync(ws, user.uid, user.gid);
  workspace = ws;
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** `dsh run --sandbox workspace-write --json` as the ordinary user, in the workspace; the rendered text. */
async function run(command: string): Promise<string> {
  const child = start(
    [
      process.execPath,
      bundle.launcher,
      'run',
      '--config',
      config,
      '--sandbox',
      'workspace-write',
      '--json',
      '--',
      command,
    ],
    {
      user,
      env: { PATH: '/usr/bin:/bin', HOME: `/home/${user.name}` },
      cwd: workspace,
    },
  );
  const out = await collect(child, 90_000);
  return (JSON.parse(out.stdout) as { text: string }).text;
}

describe('world limits of an unprivileged dsh', () => {
  it('a fork bomb is held at the pids limit and is [sandbox limit: pids]; the next call works', async () => {
    const text = await run('bomb() { bomb | bomb & }; bomb; sleep 2; exit 3');
    expect(parseShellResult(text).sandboxLimit).toBe('pids');
    expect(text).toContain('[sandbox limit: pids]');
    expect(parseShellResult(await run('echo alive')).exitCode).toBe(0);
  });

  it('the world’s processes together past the memory limit: the largest is [killed: out of memory in the sandbox]', async () => {
    // Each alone is within the limit; together they are past it.
    const hold = (mib: number) =>
      `python3 -c "import time; b = bytearray(${mib} * 2 ** 20); time.sleep(5); print('held ${mib}')"`;
    const text = await run(`${hold(100)} & exec ${hold(200)}`);
    expect(text).not.toContain('held 200');
    expect(parseShellResult(text).sandboxLimit).toBe('memory');
    expect(text).toContain('[killed: out of memory in the sandbox]');
  });

  it('one process past the memory limit is refused its allocation', async () => {
    const text = await run(`python3 -c "b = bytearray(1024 * 2 ** 20); print('allocated')"`);
    expect(text).not.toContain('allocated');
    expect(text).toContain('MemoryError');
  });
});
