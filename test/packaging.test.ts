/**
 * Installable like a real npm package: `npm pack` of every workspace package gives tarballs that
 * install into an empty directory with no workspace around them, offline: ours come from the
 * tarballs only, third-party packages from npm's cache at the versions and integrity the
 * repository's lock pins (as a registry would resolve them). There `npx dsh run` and
 * `npx dsh mcp` work.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, waitFor } from './support.js';

const repo = resolve(import.meta.dirname, '..');
const npm = (args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

type LockEntry = Record<string, unknown> & { dev?: boolean; link?: boolean; dependencies?: Record<string, string> };

/**
 * An app depending on every tarball, with a lock: our packages as `file:` tarballs, and the
 * repository lock's production (non-dev) third-party entries as they are.
 */
function writeAppWithLock(app: string, packs: string, tarballs: string[]): void {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const ours = new Map<string, { tarball: string; manifest: LockEntry & { name: string } }>();
  for (const t of tarballs) {
    const listed = execFileSync('tar', ['-xzOf', join(packs, t), 'package/package.json'], { encoding: 'utf8' });
    const manifest = JSON.parse(listed) as LockEntry & { name: string };
    ours.set(manifest.name, { tarball: t, manifest });
  }
  const deps = Object.fromEntries([...ours].map(([name, o]) => [name, `file:${join(packs, o.tarball)}`]));
  const packages: Record<string, LockEntry> = { '': { name: 'dsh-install-test', dependencies: deps } };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.link) continue;
    // This repository's lock records no download addresses; a registry lock would, so name the
    // registry's tarball (npm then finds it in its cache by integrity, with no packument).
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const file = `${name.split('/').at(-1)}-${entry.version}.tgz`;
    packages[path] = { resolved: `https://registry.npmjs.org/${name}/-/${file}`, ...entry };
  }
  for (const [name, { tarball, manifest }] of ours) {
    packages[`node_modules/${name}`] = {
      version: manifest.version,
      resolved: `file:${join(packs, tarball)}`,
      ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
      ...(manifest.bin ? { bin: manifest.bin } : {}),
    };
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'dsh-install-test', private: true, dependencies: deps }),
  );
  writeFileSync(
    join(app, 'package-lock.json'),
    JSON.stringify({ name: 'dsh-install-test', lockfileVersion: 3, requires: true, packages }),
  );
}

describe('packaging', () => {
  it('every workspace packs, installs offline into an empty directory, and dsh run / dsh mcp work there', async () => {
    const packs = tempDir('dsh-packs-');
    const { workspaces } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { workspaces: string[] };
    npm(['pack', '--workspaces', '--pack-destination', packs, '--silent'], repo);
    const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    expect(tarballs).toHaveLength(workspaces.length);
    const app = tempDir('dsh-install-');
    writeAppWithLock(app, packs, tarballs);
    const home = tempDir('dsh-install-home-');
    // Offline: nothing may come from the network; our packages can only come from the tarballs.
    npm(['ci', '--offline', '--no-audit', '--no-fund'], app);
    const env = { ...process.env, HOME: home, npm_config_offline: 'true' };
    const run = spawnSync('npx', ['--no-install', 'dsh', 'run', '--', 'echo hi'], { cwd: app, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ status: 0, stdout: 'hi\n\n[exit code: 0]\n' });
    await expectMcpAnswers('npx', ['--no-install', 'dsh', 'mcp', '--no-log'], app, env);
  });

  it('npm install -g of the tarballs gives a dsh on PATH: dsh run and dsh mcp work from any directory', async () => {
    const packs = tempDir('dsh-packs-global-');
    npm(['pack', '--workspaces', '--pack-destination', packs, '--silent'], repo);
    const tarballs = readdirSync(packs)
      .filter((f) => f.endsWith('.tgz'))
      .map((f) => join(packs, f));
    const prefix = tempDir('dsh-global-');
    // Third-party packages resolve as a registry answers (from npm's cache where it holds them).
    npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], packs);
    const elsewhere = tempDir('dsh-global-cwd-');
    const env = {
      ...process.env,
      HOME: tempDir('dsh-global-home-'),
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    };
    const run = spawnSync('dsh', ['run', '--', 'echo hi'], { cwd: elsewhere, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run).toMatchObject({ status: 0, stdout: 'hi\n\n[exit code: 0]\n' });
    await expectMcpAnswers('dsh', ['mcp', '--no-log'], elsewhere, env);
  });
});

/** Starts `command args` as an MCP stdio server in `cwd`: a bash call answers, and it exits 0 at EOF. */
async function expectMcpAnswers(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const mcp = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  mcp.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((r) => mcp.once('exit', (code) => r(code)));
  const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } };
  mcp.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
  mcp.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const call = { name: 'bash', arguments: { command: 'echo packed' } };
  mcp.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call })}\n`);
  await waitFor(() => out.includes('"id":2'), 'the tools/call answer');
  expect(out).toContain('packed\\n\\n[exit code: 0]');
  mcp.stdin.end();
  expect(await exited).toBe(0);
}
