/**
 * Language servers are confined like the agent's commands (issue 19, from an attacker's trial):
 * in a restricted mode they run in the agent's world, so a symlink in the workspace to a hidden
 * file gives the server nothing to read (before, the server ran on the host and quoted it back).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compose } from 'dsh';
import { describe, expect, it } from 'vitest';

describe('language servers in a restricted mode', () => {
  it('run in the agent’s world: a hidden file behind a symlink stays hidden', { timeout: 120_000 }, async () => {
    const root = mkdtempSync('/var/tmp/dsh-lsp-fence-');
    const workspace = join(root, 'ws');
    const secrets = join(root, 'secrets');
    mkdirSync(workspace);
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'bait.ts'), 'export const SECRET_TOKEN = "BAIT-LSP-9911";\n');
    symlinkSync(join(secrets, 'bait.ts'), join(workspace, 'link.ts'));
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
});
