/**
 * Editing by meaning (issue 23, 4): `lsp_rename` renames a symbol across the project with the
 * real typescript-language-server, in workspace-write (the edit is written through the agent's
 * world), answers with the diff, and leaves a project tsc still accepts; a rename that would touch
 * a file the sandbox does not let the agent write changes nothing. The diff and edit helpers
 * alone, too.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { applyEdits, unifiedDiff } from '@dsh/lsp';
import { compose, type Dsh } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support.js';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const open: Dsh[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function project(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

async function agentIn(workspace: string) {
  const dsh = await compose({ preset: 'full', config: { workspace, sandbox: { mode: 'workspace-write' } } });
  open.push(dsh);
  return { dsh, agent: dsh.createAgent('a') };
}

describe('lsp_rename', () => {
  it('renames a symbol across five files in workspace-write, answers with the diff, and tsc still passes', async () => {
    const workspace = tempDir('dsh-rename-');
    const users = ['a', 'b', 'c', 'd'].map((n) => [
      `src/${n}.ts`,
      `import { total } from './lib';\n\nexport const ${n}: number = total(1, 2);\n`,
    ]);
    project(workspace, {
      'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
      'src/lib.ts': 'export function total(x: number, y: number): number {\n  return x + y;\n}\n',
      ...Object.fromEntries(users),
    });
    const { dsh, agent } = await agentIn(workspace);
    const r = await dsh.tools.call(agent, 'lsp_rename', { path: 'src/a.ts', line: 3, column: 29, new_name: 'sum' });
    expect(r.isError, r.text).toBe(false);
    expect((r.data as { files: string[] }).files.sort()).toEqual([
      'src/a.ts',
      'src/b.ts',
      'src/c.ts',
      'src/d.ts',
      'src/lib.ts',
    ]);
    expect(readFileSync(join(workspace, 'src/lib.ts'), 'utf8')).toBe(
      'export function sum(x: number, y: number): number {\n  return x + y;\n}\n',
    );
    for (const n of ['a', 'b', 'c', 'd']) {
      expect(readFileSync(join(workspace, `src/${n}.ts`), 'utf8')).toBe(
        `import { sum } from './lib';\n\nexport const ${n}: number = sum(1, 2);\n`,
      );
    }
    expect(r.text).toContain('--- a/src/lib.ts\n+++ b/src/lib.ts\n@@ -1,1 +1,1 @@\n-export function total(');
    expect(r.text).toContain('+export const a: number = sum(1, 2);');
    execFileSync(process.execPath, [TSC, '-p', workspace]); // throws on a type error
  });

  it('changes nothing when a file it would touch is not writable in the sandbox (outside the workspace)', async () => {
    // Not under /tmp: a world has a /tmp of its own, and the shared file must be there to be seen.
    const root = mkdtempSync('/var/tmp/dsh-rename-');
    roots.push(root);
    const workspace = join(root, 'app');
    project(root, {
      'shared/lib.ts': 'export const limit: number = 3;\n',
      'app/tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["main.ts"] }\n',
      'app/main.ts': "import { limit } from '../shared/lib';\n\nexport const twice: number = limit * 2;\n",
    });
    const { dsh, agent } = await agentIn(workspace);
    const r = await dsh.tools.call(agent, 'lsp_rename', { path: 'main.ts', line: 3, column: 31, new_name: 'cap' });
    expect(r.isError, r.text).toBe(true);
    expect((r.data as { error: { code: string } }).error.code).toBe('LSP_EDIT_DENIED');
    expect(r.text).toContain(join(root, 'shared/lib.ts'));
    expect(r.text).toContain('nothing was changed');
    expect(readFileSync(join(workspace, 'main.ts'), 'utf8')).toContain('limit * 2');
    expect(readFileSync(join(root, 'shared/lib.ts'), 'utf8')).toBe('export const limit: number = 3;\n');
  });
});

describe('the edit helpers', () => {
  it('apply edits by UTF-16 position (as LSP counts) and diff changed lines without context', () => {
    const text = 'const 😀x = 1;\nuse(😀x);\n';
    const range = (line: number, from: number, to: number) => ({
      start: { line, character: from },
      end: { line, character: to },
    });
    const after = applyEdits(text, [
      { range: range(0, 6, 9), newText: 'y' },
      { range: range(1, 4, 7), newText: 'y' },
    ]);
    expect(after).toBe('const y = 1;\nuse(y);\n');
    expect(unifiedDiff('f.ts', 'a\nb\nc\n', 'a\nB\nc\n')).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -2,1 +2,1 @@\n-b\n+B');
    expect(unifiedDiff('f.ts', 'a\nb\n', 'a\nx\ny\nb\n')).toBe('--- a/f.ts\n+++ b/f.ts\n@@ -2,0 +2,2 @@\n+x\n+y');
  });
});
