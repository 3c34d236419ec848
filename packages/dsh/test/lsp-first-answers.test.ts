/**
 * The very first answers of a fresh language server are whole (issue 23, tests): a generated
 * project of a dozen files with cross-file imports and deliberate errors, in TypeScript and in
 * Python; for FRESH_SERVERS fresh servers in a row, the first diagnostics, definition, references
 * and hover give what tsc / pyright's CLI and grep give.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { compose } from 'dsh';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support.js';

const require = createRequire(import.meta.url);
/** Fresh servers in a row, each asked first. */
const FRESH_SERVERS = 10;
/** Modules of the generated project (each imports the one before). */
const MODULES = 10;

function write(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

/** How often `word` occurs as a word in the project's files of `ext` (what grep -w counts). */
function occurrences(root: string, dir: string, ext: string, word: string): number {
  let n = 0;
  for (const f of readdirSync(join(root, dir)).filter((f) => f.endsWith(ext))) {
    n += (readFileSync(join(root, dir, f), 'utf8').match(new RegExp(`\\b${word}\\b`, 'g')) ?? []).length;
  }
  return n;
}

interface Lang {
  name: string;
  files(): Record<string, string>;
  /** The file with the errors, and the `line:` of each error tsc / pyright reports there (sorted). */
  main: string;
  expectedErrorLines(root: string): number[];
  /** A use of f3 in main, and where f3 is defined. */
  use: { line: number; column: number };
  definedIn: string;
  dir: string;
  ext: string;
  hover: string;
}

const TS: Lang = {
  name: 'TypeScript (typescript-language-server)',
  dir: 'src',
  ext: '.ts',
  main: 'src/main.ts',
  files() {
    const files: Record<string, string> = {
      'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
    };
    for (let i = 0; i < MODULES; i++) {
      files[`src/m${i}.ts`] =
        `export function f${i}(x: number): number {\n  return x + ${i};\n}\n` +
        (i > 0 ? `\nimport { f${i - 1} } from './m${i - 1}';\nexport const v${i}: number = f${i - 1}(${i});\n` : '');
    }
    files['src/main.ts'] = [
      "import { f3 } from './m3';",
      "import { f7 } from './m7';",
      '',
      'export const a: number = f3(1) + f3(2);',
      'export const bad: string = f3(3);',
      "export const worse: number = f7('x');",
      '',
    ].join('\n');
    return files;
  },
  expectedErrorLines(root) {
    const tsc = [require.resolve('typescript/bin/tsc'), '-p', root, '--pretty', 'false'];
    const r = spawnSync(process.execPath, tsc, { encoding: 'utf8', cwd: root });
    return [...r.stdout.matchAll(/^src\/main\.ts\((\d+),\d+\): error /gm)].map((m) => Number(m[1])).sort();
  },
  use: { line: 4, column: 26 },
  definedIn: 'src/m3.ts:1:17',
  hover: 'f3(x: number): number', // an import alias at the use: (alias) f3(…)
};

const PY: Lang = {
  name: 'Python (pyright)',
  dir: 'pkg',
  ext: '.py',
  main: 'pkg/main.py',
  files() {
    const files: Record<string, string> = { 'pyrightconfig.json': '{}\n' };
    for (let i = 0; i < MODULES; i++) {
      files[`pkg/m${i}.py`] =
        (i > 0 ? `from m${i - 1} import f${i - 1}\n\n\n` : '') +
        `def f${i}(x: int) -> int:\n    return x + ${i}\n` +
        (i > 0 ? `\n\nv${i}: int = f${i - 1}(${i})\n` : '');
    }
    files['pkg/main.py'] = [
      'from m3 import f3',
      'from m7 import f7',
      '',
      'a: int = f3(1) + f3(2)',
      'bad: str = f3(3)',
      'worse: int = f7("x")',
      '',
    ].join('\n');
    return files;
  },
  expectedErrorLines(root) {
    const out = spawnSync(process.execPath, [require.resolve('pyright/index.js'), '--outputjson', '-p', root], {
      encoding: 'utf8',
      cwd: root,
    }).stdout;
    const report = JSON.parse(out) as {
      generalDiagnostics: { file: string; severity: string; range: { start: { line: number } } }[];
    };
    return report.generalDiagnostics
      .filter((d) => d.file.endsWith('/pkg/main.py') && d.severity === 'error')
      .map((d) => d.range.start.line + 1)
      .sort();
  },
  use: { line: 4, column: 10 },
  definedIn: 'pkg/m3.py:4:5',
  hover: 'def f3(x: int) -> int',
};

describe.each([TS, PY])('the first answers of fresh servers: $name', (lang) => {
  it(`${FRESH_SERVERS} fresh servers in a row: the first diagnostics, definition, references and hover are whole`, async () => {
    const root = tempDir('dsh-lsp-first-');
    write(root, lang.files());
    const errorLines = lang.expectedErrorLines(root);
    expect(errorLines.length, 'the fixture has its deliberate errors').toBeGreaterThanOrEqual(2);
    const uses = occurrences(root, lang.dir, lang.ext, 'f3');
    for (let i = 0; i < FRESH_SERVERS; i++) {
      const dsh = await compose({
        preset: 'full',
        config: { workspace: root, sandbox: { mode: 'danger-full-access' } },
      });
      try {
        const agent = dsh.createAgent(`a${i}`);
        const diags = await dsh.tools.call(agent, 'lsp_diagnostics', { path: lang.main });
        const lines = [...diags.text.matchAll(new RegExp(`^${lang.main}:(\\d+):\\d+: error: `, 'gm'))]
          .map((m) => Number(m[1]))
          .sort();
        expect(lines, `server ${i + 1}: ${diags.text}`).toEqual(errorLines);
        const def = await dsh.tools.call(agent, 'lsp_definition', { path: lang.main, ...lang.use });
        expect(def.text, `server ${i + 1}`).toBe(lang.definedIn);
        const refs = await dsh.tools.call(agent, 'lsp_references', { path: lang.main, ...lang.use });
        expect((refs.data as { count: number }).count, `server ${i + 1}: ${refs.text}`).toBe(uses);
        const hover = await dsh.tools.call(agent, 'lsp_hover', { path: lang.main, ...lang.use });
        expect(hover.text, `server ${i + 1}`).toContain(lang.hover);
      } finally {
        await dsh.dispose();
      }
    }
  });
});
