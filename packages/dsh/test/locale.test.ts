/**
 * A UTF-8 locale by default (issue 20, c): with no locale in the environment (as an MCP client
 * often starts its servers), one-shot commands and terminals get `LANG=C.UTF-8`; a locale the
 * environment names, or an explicit entry, wins.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compose, parseShellResult } from 'dsh';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const NAMES = ['LANG', 'LC_ALL', 'LC_CTYPE'] as const;
let saved: Record<string, string | undefined> = {};

beforeEach(() => {
  saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
  for (const n of NAMES) delete process.env[n];
});
afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});

describe('the locale', () => {
  it('is C.UTF-8 when none is named: a command counts characters, vim shows 日本語', async () => {
    const workspace = mkdtempSync('/var/tmp/dsh-locale-');
    writeFileSync(join(workspace, 'jp.txt'), '日本語\n');
    const dsh = await compose({ preset: 'full', config: { workspace } });
    try {
      const agent = dsh.createAgent('locale');
      const one = await dsh.tools.call(agent, 'bash', { command: 'echo "$LANG"; printf 日本語 | wc -m' });
      expect(parseShellResult(one.text).stdout).toBe('C.UTF-8\n3\n');
      const opened = await dsh.tools.call(agent, 'terminal_open', {});
      const id = opened.data?.terminal_id as string;
      const shown = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'vim -N -u NONE jp.txt' });
      expect(shown.text).toContain('日本語');
      await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: ':q!' });
    } finally {
      await dsh.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('named by the environment, stays as it is', async () => {
    process.env.LC_ALL = 'C';
    const workspace = mkdtempSync('/var/tmp/dsh-locale-');
    const dsh = await compose({ preset: 'base', config: { workspace } });
    try {
      const r = await dsh.tools.call(dsh.createAgent('c'), 'bash', {
        command: 'echo "[$LANG]"; printf 日本語 | wc -m',
      });
      expect(parseShellResult(r.text).stdout).toBe('[]\n9\n');
    } finally {
      await dsh.dispose();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
