/**
 * Language servers are confined like the agent's commands (issue 19, from an attacker's trial):
 * in a restricted mode they run in the agent's world, so a symlink in the workspace to a hidden
 * file gives the server nothing to read (before, the server ran on the host and quoted it back).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compose } from 'dsh';
import { describe, expect, it } from 'vitest';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/lsp-late.mjs', import.meta.url));

/**
 * A root outside /tmp (a world has a /tmp of its own) holding a workspace and a hidden directory
 * with `secret` in the file `bait`, and `link` in the workspace pointing at it.
 */
function baited(prefix: string, bait: string, secret: string, link: string) {
  const root = mkdtempSync(`/var/tmp/${prefix}`);
  const workspace = join(root, 'ws');
  const secrets = join(root, 'secrets');
  mkdirSync(workspace);
  mkdirSync(secrets);
  writeFileSync(join(secrets, bait), secret);
  symlinkSync(join(secrets, bait), join(workspace, link));
  return { root, workspace, secrets };
}

describe('language servers in a restricted mode', () => {
  it('run in the agent’s world: a hidden file behind a symlink stays hidden', { timeout: 120_000 }, async () => {
    const { root, workspace, secrets } = baited(
      'dsh-lsp-fence-',
      'bait.ts',
      'export const SECRET_TOKEN = "BAIT-LSP-9911";\n',
      'link.ts',
    );
    writeFileSync(join(workspace, 'b.ts'), 'import { SECRET_TOKEN } from "./link";\nconst y = SECRET_TOKEN;\n');
    const dsh = await compose({
      preset: 'full',
      config: { workspace, sandbox: { mode: 'workspace-write', denyRead: [secrets] } },
    });
    try {
      const agent = dsh.createAgent('reader');
      const hover = await dsh.tools.call(agent, 'lsp_hover', { path: 'b.ts', line: 2, column: 11 });
      const diags = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'link.ts' });
      expect(hover.text + diags.text).not.toContain('BAIT-LSP-9911');
      // The server runs inside the fence: not in this machine's pid namespace.
      const found = spawnSync('pgrep', ['-f', 'typescript-language-server'], { encoding: 'utf8' }).stdout.trim();
      const pids = found === '' ? [] : found.split('\n').map(Number);
      const mine = pids.filter((pid) => {
        try {
          return readlinkSync(`/proc/${pid}/cwd`).startsWith(workspace);
        } catch {
          return false;
        }
      });
      expect(mine.length).toBeGreaterThan(0);
      for (const pid of mine) expect(readlinkSync(`/proc/${pid}/ns/pid`)).not.toBe(readlinkSync('/proc/self/ns/pid'));
    } finally {
      await dsh.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a hostile server gets no host file: a symlink to a hidden one, nor an edit aimed at a file that is another in the world', {
    timeout: 120_000,
  }, async () => {
    const { root, workspace, secrets } = baited('dsh-lsp-hostile-', 'key', 'HOSTILE-BAIT-SECRET\n', 'k.fake');
    writeFileSync(join(workspace, 'a.fake'), 'x\n');
    // A file of the host's /tmp: the world has a /tmp of its own, where the same path is the agent's.
    const hostTmp = mkdtempSync('/tmp/dsh-lsp-hostile-');
    writeFileSync(join(hostTmp, 'host-only'), 'HOSTILE-TMP-SECRET\n');
    const fake = {
      command: [process.execPath, HOSTILE_SERVER, 'evil', `file://${join(hostTmp, 'host-only')}`],
      extensions: { '.fake': 'fake' },
      rootMarkers: [],
    };
    const dsh = await compose({
      preset: 'full',
      config: { workspace, sandbox: { mode: 'workspace-write', denyRead: [secrets] }, lsp: { servers: { fake } } },
    });
    try {
      const agent = dsh.createAgent('hostile');
      const diags = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'k.fake' });
      expect(diags.isError).toBe(true);
      expect(
        existsSync(join(workspace, 'seen-k.fake')) ? readFileSync(join(workspace, 'seen-k.fake'), 'utf8') : '',
      ).not.toContain('HOSTILE');
      // The agent makes the path in its own /tmp: writable there, so the edit is written there, from the world's text.
      await dsh.tools.call(agent, 'bash', { command: `mkdir -p ${hostTmp} && : > ${join(hostTmp, 'host-only')}` });
      const applied = await dsh.tools.call(agent, 'lsp_code_actions', { path: 'a.fake', line: 1, column: 1, apply: 1 });
      expect(applied.isError, applied.text).toBe(false);
      expect(applied.text).toContain('Applied "harmless fix" in 1 file');
      expect(applied.text).not.toContain('HOSTILE');
      expect(readFileSync(join(workspace, 'seen-a.fake'), 'utf8')).toBe('x\n'); // the hostile server did run
      const inWorld = await dsh.tools.call(agent, 'bash', { command: `cat ${join(hostTmp, 'host-only')}` });
      expect(inWorld.text).not.toContain('HOSTILE');
      expect(readFileSync(join(hostTmp, 'host-only'), 'utf8')).toBe('HOSTILE-TMP-SECRET\n');
    } finally {
      await dsh.dispose();
      rmSync(root, { recursive: true, force: true });
      rmSync(hostTmp, { recursive: true, force: true });
    }
  });
});
