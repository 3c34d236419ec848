/**
 * More editing by meaning (issue 23, 4) with the real typescript-language-server:
 * `lsp_workspace_symbols` finds symbols across the project, `lsp_format` formats a file through
 * the agent's world and answers with the diff, `lsp_code_actions` lists the quick fixes at a place
 * and applies one; an edit the sandbox does not allow changes nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compose, type Dsh } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support.js';

const open: Dsh[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
});

const TSCONFIG = '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n';

function project(files: Record<string, string>): string {
  const root = tempDir('dsh-meaning-');
  for (const [name, text] of Object.entries({ 'tsconfig.json': TSCONFIG, ...files })) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

async function agentIn(workspace: string, mode: 'workspace-write' | 'read-only' = 'workspace-write') {
  const dsh = await compose({ preset: 'full', config: { workspace, sandbox: { mode } } });
  open.push(dsh);
  return { dsh, agent: dsh.createAgent('a') };
}

const codeOf = (r: { data?: unknown }) => (r.data as { error?: { code: string } } | undefined)?.error?.code;

describe('lsp_workspace_symbols', () => {
  it('finds symbols across the project, from a named file’s server or the servers already running', async () => {
    const workspace = project({
      'src/lib.ts': 'export function total(x: number): number {\n  return x;\n}\n',
      'src/basket.ts':
        "import { total } from './lib';\n\nexport class Basket {\n  sum(): number {\n    return total(1);\n  }\n}\n",
    });
    const { dsh, agent } = await agentIn(workspace);
    const none = await dsh.tools.call(agent, 'lsp_workspace_symbols', { query: 'total' });
    expect(none.isError).toBe(true);
    expect(codeOf(none)).toBe('LSP_NO_SERVER');
    const named = await dsh.tools.call(agent, 'lsp_workspace_symbols', { query: 'total', path: 'src/basket.ts' });
    expect(named.isError, named.text).toBe(false);
    expect(named.text).toContain('src/lib.ts:1:1 total'); // where its declaration starts
    // The server now runs for this agent: no path needed.
    const running = await dsh.tools.call(agent, 'lsp_workspace_symbols', { query: 'Basket' });
    expect(running.text).toContain('src/basket.ts:3:1 Basket');
  });
});

describe('lsp_format', () => {
  it('formats a file through the world, answers with the diff, and then says it is formatted', async () => {
    const workspace = project({ 'src/messy.ts': 'export const   x={a:1,b:2};\nexport function f( ){return x}\n' });
    const { dsh, agent } = await agentIn(workspace);
    const r = await dsh.tools.call(agent, 'lsp_format', { path: 'src/messy.ts' });
    expect(r.isError, r.text).toBe(false);
    expect(readFileSync(join(workspace, 'src/messy.ts'), 'utf8')).toBe(
      'export const x = { a: 1, b: 2 };\nexport function f() { return x }\n',
    );
    expect(r.text).toContain('Formatted in 1 file: src/messy.ts');
    expect(r.text).toContain('\n-export const   x={a:1,b:2};\n');
    expect(r.text).toContain('\n+export const x = { a: 1, b: 2 };\n');
    const again = await dsh.tools.call(agent, 'lsp_format', { path: 'src/messy.ts' });
    expect(again.text).toBe('src/messy.ts is already formatted.');
  });

  it('changes nothing where the sandbox does not let the agent write (read-only)', async () => {
    const text = 'export const   y=1;\n';
    const workspace = project({ 'src/ro.ts': text });
    const { dsh, agent } = await agentIn(workspace, 'read-only');
    const r = await dsh.tools.call(agent, 'lsp_format', { path: 'src/ro.ts' });
    expect(r.isError).toBe(true);
    expect(codeOf(r)).toBe('LSP_EDIT_DENIED');
    expect(readFileSync(join(workspace, 'src/ro.ts'), 'utf8')).toBe(text);
  });
});

describe('lsp_code_actions', () => {
  it('lists the quick fixes at a place and applies one by its number', async () => {
    const workspace = project({ 'src/typo.ts': 'const total = 1;\nexport const y = totl + 1;\n' });
    const { dsh, agent } = await agentIn(workspace);
    const list = await dsh.tools.call(agent, 'lsp_code_actions', { path: 'src/typo.ts', line: 2, column: 18 });
    expect(list.isError, list.text).toBe(false);
    const line = list.text.split('\n').find((l) => l.includes("Change spelling to 'total'"));
    expect(line, list.text).toBeDefined();
    const n = Number(/^(\d+)\. /.exec(line as string)?.[1]);
    const applied = await dsh.tools.call(agent, 'lsp_code_actions', {
      path: 'src/typo.ts',
      line: 2,
      column: 18,
      apply: n,
    });
    expect(applied.isError, applied.text).toBe(false);
    expect(readFileSync(join(workspace, 'src/typo.ts'), 'utf8')).toBe(
      'const total = 1;\nexport const y = total + 1;\n',
    );
    expect(applied.text).toContain('Applied "Change spelling to \'total\'" in 1 file: src/typo.ts');
    const past = await dsh.tools.call(agent, 'lsp_code_actions', {
      path: 'src/typo.ts',
      line: 2,
      column: 18,
      apply: 99,
    });
    expect(codeOf(past)).toBe('INVALID_ARGUMENT');
  });
});
