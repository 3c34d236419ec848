/**
 * A remote world in a real Docker container (`docker exec -i`), made from a rootfs that holds
 * Node.js and bash and nothing of dsh: the runtime server is sent over the channel; commands,
 * terminals and jobs run in the container with its paths; there is no bubblewrap there, so a
 * restricted mode refuses with SANDBOX_UNAVAILABLE and the fix.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compose, type Dsh } from 'dsh';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DockerWorld, startDockerWorld } from '../../../test/docker.js';
import { childMatching, waitFor } from '../../../test/support.js';

const BIN = fileURLToPath(new URL('../bin/dsh.js', import.meta.url));
let engine: DockerWorld;
const open: Dsh[] = [];
beforeAll(async () => {
  engine = await startDockerWorld();
}, 300_000);
afterAll(async () => {
  await engine?.stop();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
});

describe('remote world in a Docker container', () => {
  it('boots there, and the shell, jobs and terminals run inside the container', async () => {
    const dsh = await compose({
      preset: 'full',
      config: { world: { kind: 'remote', connect: engine.argv }, sandbox: { mode: 'danger-full-access' } },
    });
    open.push(dsh);
    const world = dsh.dumpConfig().world as { boot: string; remote: { hostname: string; home: string } };
    expect(world.boot).toBe('sent');
    expect(engine.container.startsWith(world.remote.hostname)).toBe(true);
    const agent = dsh.createAgent('a');
    const r = await dsh.tools.call(agent, 'bash', { command: 'cat /etc/passwd; pwd; ls /work' });
    expect(r.text).toBe('root:x:0:0:root:/root:/bin/bash\n/root\n\n[exit code: 0]');
    const job = await dsh.tools.call(agent, 'bash', { command: 'echo in-container', run_in_background: true });
    expect(job.isError).toBe(false);
    const term = await dsh.tools.call(agent, 'terminal_open', {});
    expect(term.isError).toBe(false);
    const id = (term.data as { terminal_id: string }).terminal_id;
    const sent = await dsh.tools.call(agent, 'terminal_send', {
      terminal_id: id,
      input: 'echo $((6*7)); cat /etc/group',
    });
    expect(sent.text).toContain('42');
    expect(sent.text).toContain('root:x:0:');
    // The language servers are this machine's packages: none is in the container, so their tools
    // are not listed, and dumpConfig says why.
    expect(dsh.tools.list().some((t) => t.name.startsWith('lsp_'))).toBe(false);
    const lsp = dsh.dumpConfig().lsp as { unavailable: Record<string, string> };
    expect(lsp.unavailable.typescript).toContain('is not there where the commands run');
    expect(lsp.unavailable.python).toContain('is not there where the commands run');
  });

  it('comes back after its docker exec is killed: the next call runs in a fresh world and says so', async () => {
    const dsh = await compose({
      preset: 'base',
      config: { world: { kind: 'remote', connect: engine.argv }, sandbox: { mode: 'danger-full-access' } },
    });
    open.push(dsh);
    const agent = dsh.createAgent('a');
    expect((await dsh.tools.call(agent, 'bash', { command: 'echo before' })).text).toMatch(/^before\n/);
    const channel = childMatching((argv) => argv[0] === engine.argv[0] && argv.includes('exec'));
    expect(channel).toBeDefined();
    process.kill(Number(channel), 'SIGKILL');
    const fresh = await waitFor(async () => {
      const r = await dsh.tools.call(agent, 'bash', { command: 'echo after' });
      return r.isError ? null : r;
    }, 'a call to run in the world made again');
    expect(fresh.text).toMatch(/^after\n/);
    expect(fresh.text).toContain('This is a fresh world');
  }, 120_000);

  it('a restricted mode refuses there with SANDBOX_UNAVAILABLE and says how to fix it', async () => {
    const dsh = await compose({
      preset: 'base',
      config: { world: { kind: 'remote', connect: engine.argv }, sandbox: { mode: 'workspace-write' } },
    });
    open.push(dsh);
    expect((dsh.dumpConfig().world as { remote: { fence: string | null } }).remote.fence).toBeNull();
    const r = await dsh.tools.call(dsh.createAgent('a'), 'bash', { command: 'true' });
    expect(r.isError).toBe(true);
    expect((r.data as { error: { code: string } }).error.code).toBe('SANDBOX_UNAVAILABLE');
    expect(r.text).toContain('on the remote machine; install bubblewrap');
  });

  it('dsh run exits 3 there for a restricted mode (no fence: nothing ran), not 2 (bad usage)', () => {
    const r = spawnSync(
      process.execPath,
      [BIN, 'run', '--no-log', '--sandbox', 'workspace-write', '--connect', engine.argv.join(' '), '--', 'true'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status, r.stderr + r.stdout).toBe(3);
    expect(r.stdout + r.stderr).toContain('install bubblewrap');
  });
});
