/**
 * A real client that no one here wrote: the MCP Inspector's CLI mode lists the tools (with its
 * schema-portability check) and calls `bash` against `dsh mcp`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir } from './helpers.js';

const require = createRequire(import.meta.url);
const inspectorBin = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

function inspector(...args: string[]) {
  const home = tempDir('dsh-inspector-');
  return spawnSync(
    process.execPath,
    [inspectorBin, '--cli', process.execPath, BIN, 'mcp', '--no-log', '--workspace', home, ...args],
    { encoding: 'utf8', env: { ...process.env, HOME: home }, timeout: 60_000 },
  );
}

describe('MCP Inspector CLI against dsh mcp', () => {
  it('lists the tools, with no schema-portability finding', () => {
    const r = inspector('--method', 'tools/list', '--strict');
    expect(r.status).toBe(0);
    const names = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain('bash');
    expect(names).toContain('terminal_send');
    expect(r.stderr).not.toMatch(/Warning|Error/);
  });

  it('calls bash and gets the rendered text and the facts', () => {
    const r = inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'bash',
      '--tool-arg',
      'command=echo from-inspector; exit 5',
    );
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as { content: { text: string }[]; structuredContent: { exit_code: number } };
    expect(result.content[0]?.text).toBe('from-inspector\n\n[exit code: 5]');
    expect(result.structuredContent.exit_code).toBe(5);
  });
});
