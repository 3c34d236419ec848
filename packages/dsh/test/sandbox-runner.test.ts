/**
 * A runner that fails before the command runs is told apart from the command failing.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compose, parseShellResult } from 'dsh';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join('/var/tmp', 'dsh-runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('sandbox runner failures', () => {
  it('are reported as runnerFailed with their own marker, not as a denial or the command’s failure', async () => {
    const workspace = join(root, 'ws');
    mkdirSync(workspace);
    const fake = join(root, 'bwrap');
    // Passes the availability probe (which runs `true`), then fails the way bwrap does at set-up.
    writeFileSync(
      fake,
      '#!/bin/sh\nfor last; do :; done\n[ "$last" = true ] && exit 0\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    const dsh = await compose({ config: { workspace, sandbox: { bwrapPath: fake } } });
    try {
      const res = await dsh.tools.call(dsh.createAgent('r'), 'bash', { command: 'echo never' });
      expect(res.data.sandbox).toMatchObject({ runnerFailed: true, denied: false, mode: 'workspace-write' });
      expect(parseShellResult(res.text)).toMatchObject({
        runnerFailed: true,
        sandboxDenied: false,
        sandboxMode: 'workspace-write',
      });
      expect(res.text).toContain('[sandbox runner failed; mode: workspace-write]');
    } finally {
      await dsh.dispose();
    }
  });
});
