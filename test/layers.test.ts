import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const checker = join(repo, 'scripts', 'check-layers.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A throw-away tree with the given files (paths relative to its root). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dsh-layers-'));
  dirs.push(root);
  const base = {
    'package.json': JSON.stringify({ name: 'fixture', private: true, workspaces: [] }),
    'tsconfig.depcruise.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' },
    }),
  };
  for (const [path, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root?: string): { status: number | null; output: string } {
  const args = root ? [checker, '--root', root] : [checker];
  const r = spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('layer check', () => {
  it('passes on this repository and reports a non-zero module count', () => {
    const r = check();
    expect(r.output).toMatch(/layer check passed: [1-9]\d* modules scanned/);
    expect(r.status).toBe(0);
  });

  it('fails when a lower layer imports a higher one', () => {
    const root = tree({
      'packages/core/src/a.ts': "import { b } from '../../subprocess/subprocess/src/b.js';\nexport const a = b;\n",
      'packages/subprocess/subprocess/src/b.ts': 'export const b = 1;\n',
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.output).toContain('layer-core');
  });

  it('fails when a contract package imports its provider', () => {
    const root = tree({
      'packages/subprocess/subprocess/src/c.ts':
        "import { p } from '../../subprocess-local/src/p.js';\nexport const c = p;\n",
      'packages/subprocess/subprocess-local/src/p.ts': 'export const p = 1;\n',
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.output).toContain('layer-subprocess');
  });

  it('passes a higher layer importing a lower one', () => {
    const root = tree({
      'packages/subprocess/subprocess-local/src/p.ts':
        "import { c } from '../../../core/src/c.js';\nexport const p = c;\n",
      'packages/core/src/c.ts': 'export const c = 1;\n',
    });
    expect(check(root).status).toBe(0);
  });

  it('fails when it scanned zero modules', () => {
    const root = tree({ 'packages/core/dist/built.ts': 'export const x = 1;\n' });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.output).toContain('scanned 0 modules');
  });
});
