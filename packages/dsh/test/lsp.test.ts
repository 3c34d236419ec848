/**
 * ctx.lsp against the real servers (typescript-language-server with tsserver, and pyright):
 * a type error is reported at its line, definitions jump across files, a fix made with bash is
 * seen, a server killed from outside is restarted by the next call, and after dispose() no
 * language-server process is left.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LspHost } from '@dsh/lsp';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { compose, type Dsh } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, tempDir, waitFor } from '../../../test/support.js';

/** A server that publishes an empty list first and the real one later (fixtures/lsp-late.mjs). */
const LATE_SERVER = fileURLToPath(new URL('./fixtures/lsp-late.mjs', import.meta.url));

const open: Dsh[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
});

/** `root` and every live process below it (the server and what it started: tsserver, workers). */
function treeOf(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z') parent.set(Number(name), Number(fields[1]));
    } catch {
      // gone
    }
  }
  const tree = [root];
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (tree.includes(ppid) && !tree.includes(pid)) {
        tree.push(pid);
        grew = true;
      }
    }
  }
  return tree.filter((pid) => parent.has(pid));
}

async function rig(files: Record<string, string>) {
  const workspace = tempDir('dsh-lsp-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(workspace, name, '..'), { recursive: true });
    writeFileSync(join(workspace, name), text);
  }
  const dsh = await compose({ preset: 'full', config: { workspace, sandbox: { mode: 'danger-full-access' } } });
  open.push(dsh);
  return { dsh, agent: dsh.createAgent('a'), workspace };
}

type Case = {
  name: string;
  files: Record<string, string>;
  file: string;
  errorLine: number;
  use: { line: number; column: number };
  definedIn: string;
  fix: string;
};

const CASES: Case[] = [
  {
    name: 'typescript-language-server',
    files: {
      'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
      'src/lib.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
      'src/main.ts': "import { add } from './lib';\n\nexport const total: number = add('x', 2);\n",
    },
    file: 'src/main.ts',
    errorLine: 3,
    use: { line: 3, column: 30 },
    definedIn: 'src/lib.ts:1:17',
    fix: 'sed -i "s/add(\'x\', 2)/add(1, 2)/" src/main.ts',
  },
  {
    name: 'pyright',
    files: {
      'pyrightconfig.json': '{}\n',
      'pkg/lib.py': 'def add(a: int, b: int) -> int:\n    return a + b\n',
      'pkg/main.py': 'from lib import add\n\ntotal: int = add("x", 2)\n',
    },
    file: 'pkg/main.py',
    errorLine: 3,
    use: { line: 3, column: 14 },
    definedIn: 'pkg/lib.py:1:5',
    fix: 'sed -i \'s/add("x", 2)/add(1, 2)/\' pkg/main.py',
  },
];

describe.each(CASES)('ctx.lsp with $name', (c) => {
  it('reports the error at its line, jumps across files, sees a fix made with bash, survives a kill, leaves nothing', async () => {
    const { dsh, agent } = await rig(c.files);
    const first = await dsh.tools.call(agent, 'lsp_diagnostics', { path: c.file });
    expect(first.isError).toBe(false);
    expect(first.text).toContain(`${c.file}:${c.errorLine}:`);
    expect(first.text).toMatch(/: error: /);
    const def = await dsh.tools.call(agent, 'lsp_definition', { path: c.file, ...c.use });
    expect(def.text).toBe(c.definedIn);
    const refs = await dsh.tools.call(agent, 'lsp_references', { path: c.file, ...c.use });
    expect(refs.text).toContain(c.definedIn);
    const hover = await dsh.tools.call(agent, 'lsp_hover', { path: c.file, ...c.use });
    expect(hover.text).toContain('add');
    const symbols = await dsh.tools.call(agent, 'lsp_symbols', { path: c.definedIn.split(':')[0] as string });
    expect(symbols.text).toContain('add 1:');
    await dsh.tools.call(agent, 'bash', { command: c.fix });
    const fixed = await waitFor(async () => {
      const r = await dsh.tools.call(agent, 'lsp_diagnostics', { path: c.file });
      return r.text === 'No diagnostics.' ? r : null;
    }, 'the fix to be seen');
    expect(fixed.isError).toBe(false);
    // Killed from outside: the next call starts a new server.
    const [server] = dsh.ctx.get('lsp').list();
    expect(server?.pid).toBeGreaterThan(1);
    process.kill(server?.pid as number, 'SIGKILL');
    await waitFor(() => dsh.ctx.get('lsp').list()[0]?.dead, 'the server to be seen dead');
    const again = await dsh.tools.call(agent, 'lsp_diagnostics', { path: c.file });
    expect(again.text).toBe('No diagnostics.');
    expect(dsh.ctx.get('lsp').list()[0]?.pid).not.toBe(server?.pid);
    const tree = treeOf(dsh.ctx.get('lsp').list()[0]?.pid as number);
    expect(tree.length).toBeGreaterThan(0);
    await dsh.dispose();
    await waitFor(() => tree.every((pid) => !isAlive(pid)), 'every language-server process to end');
  });
});

describe('lsp positions as a model counts them', () => {
  it('columns count characters, not UTF-16 units; a position past the end is an error; symbols come in outline order', async () => {
    const { dsh, agent } = await rig({
      'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
      'src/a.ts':
        'export function zeta(): number {\n  return 1;\n}\nexport function alpha(): number {\n  return 2;\n}\nconst s = "😀😀"; const t = zeta();\n',
    });
    // Line 7: `const s = "😀😀"; const t = zeta();` — `zeta` starts at character 27 (UTF-16 unit 29).
    const def = await dsh.tools.call(agent, 'lsp_definition', { path: 'src/a.ts', line: 7, column: 27 });
    expect(def.text).toBe('src/a.ts:1:17');
    const refs = await dsh.tools.call(agent, 'lsp_references', { path: 'src/a.ts', line: 1, column: 17 });
    expect(refs.text).toContain('src/a.ts:7:27');
    const past = await dsh.tools.call(agent, 'lsp_definition', { path: 'src/a.ts', line: 9999, column: 1 });
    expect(past.isError).toBe(true);
    expect((past.data as { error: { code: string } }).error.code).toBe('LSP_POSITION_OUT_OF_RANGE');
    expect(past.text).toContain('has 8 lines');
    const wide = await dsh.tools.call(agent, 'lsp_hover', { path: 'src/a.ts', line: 2, column: 50 });
    expect((wide.data as { error: { code: string } }).error.code).toBe('LSP_POSITION_OUT_OF_RANGE');
    const symbols = await dsh.tools.call(agent, 'lsp_symbols', { path: 'src/a.ts' });
    expect(symbols.text.indexOf('zeta')).toBeLessThan(symbols.text.indexOf('alpha'));
  });
});

describe('ctx.lsp keeps every open file in step with the disk', () => {
  it('an edit made with bash to another open file changes this file’s diagnostics', async () => {
    const ts = CASES[0] as Case;
    const { dsh, agent } = await rig(ts.files);
    // The first answer may come from a server that has not loaded the project yet (issue 23):
    // this test is about the edit below, so it waits for the error to be reported first.
    await waitFor(async () => {
      const r = await dsh.tools.call(agent, 'lsp_diagnostics', { path: ts.file });
      return /: error: /.test(r.text);
    }, 'the error in main.ts to be reported');
    await dsh.tools.call(agent, 'lsp_symbols', { path: 'src/lib.ts' }); // now the server holds lib.ts too
    await dsh.tools.call(agent, 'bash', { command: "sed -i 's/a: number, b/a: number | string, b/' src/lib.ts" });
    await waitFor(async () => {
      const r = await dsh.tools.call(agent, 'lsp_diagnostics', { path: ts.file });
      return r.text === 'No diagnostics.';
    }, 'the change in lib.ts to be seen from main.ts');
  });
});

describe('a clean file edited and still clean', () => {
  it('answers no diagnostics, not a timeout (the server publishes nothing when they did not change)', async () => {
    const { dsh, agent, workspace } = await rig({
      'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
      'src/a.ts': 'export const x = 1;\n',
    });
    const first = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'src/a.ts' });
    expect(first.text).toBe('No diagnostics.');
    writeFileSync(join(workspace, 'src/a.ts'), 'export const x = 2;\n');
    const after = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'src/a.ts' });
    expect(after.isError, after.text).toBe(false);
    expect(after.text).toBe('No diagnostics.');
    // An edit that does change them is still seen.
    writeFileSync(join(workspace, 'src/a.ts'), 'export const x: string = 2;\n');
    const broken = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'src/a.ts' });
    expect(broken.text).toMatch(/^src\/a\.ts:1:14: error: Type 'number' is not assignable to type 'string'/);
  });
});

describe('diagnostics come from a settled server', () => {
  it.each(['progress', 'quiet'])(
    'an empty first publication is not the answer, nor a first query before the project loaded (%s)',
    async (mode) => {
      const workspace = tempDir('dsh-lsp-late-');
      writeFileSync(join(workspace, 'a.ts'), 'x\ny\nz\n');
      const runtime = new LocalSubprocessRuntime();
      const host = new LspHost(() => ({ runtime, scope: 'host' }), workspace, {
        typescript: {
          command: [process.execPath, LATE_SERVER, mode],
          extensions: { '.ts': 'typescript' },
          rootMarkers: [],
        },
      });
      try {
        const found = await host.diagnostics(join(workspace, 'a.ts'));
        expect(found.map((d) => d.message)).toEqual(['the real error']);
        expect(found.partial).toBeUndefined();
        // A fresh host: its first query waits for the server to load the project.
        const other = new LspHost(() => ({ runtime, scope: 'host' }), workspace, {
          typescript: {
            command: [process.execPath, LATE_SERVER, mode],
            extensions: { '.ts': 'typescript' },
            rootMarkers: [],
          },
        });
        try {
          const def = await other.definition({ path: join(workspace, 'a.ts'), line: 1, column: 1 });
          expect(def.map((p) => p.line)).toEqual([3]);
        } finally {
          await other.dispose();
        }
      } finally {
        await host.dispose();
        await runtime.dispose();
      }
    },
  );
});

describe('answers after an edit elsewhere', () => {
  it('an edit to another open file is waited for: this file’s diagnostics are the republished ones', async () => {
    const workspace = tempDir('dsh-lsp-deps-');
    writeFileSync(join(workspace, 'a.ts'), 'a\n');
    writeFileSync(join(workspace, 'b.ts'), 'b\n');
    const runtime = new LocalSubprocessRuntime();
    const host = new LspHost(() => ({ runtime, scope: 'host' }), workspace, {
      typescript: {
        command: [process.execPath, LATE_SERVER, 'deps'],
        extensions: { '.ts': 'typescript' },
        rootMarkers: [],
      },
    });
    try {
      const message = async (file: string) => (await host.diagnostics(join(workspace, file))).map((d) => d.message);
      expect(await message('a.ts')).toEqual(['after 0 changes']);
      expect(await message('b.ts')).toEqual(['after 0 changes']);
      writeFileSync(join(workspace, 'b.ts'), 'b changed\n');
      // Asking about the unchanged a.ts syncs b.ts first; the answer waits for a.ts's republication.
      expect(await message('a.ts')).toEqual(['after 1 changes']);
    } finally {
      await host.dispose();
      await runtime.dispose();
    }
  });
});

describe('a language server that dies', () => {
  it('at start is LSP_START_FAILED at once, with no unhandled error; the host goes on', async () => {
    const workspace = tempDir('dsh-lsp-dead-');
    writeFileSync(join(workspace, 'a.ts'), 'x\n');
    const runtime = new LocalSubprocessRuntime();
    const host = new LspHost(() => ({ runtime, scope: 'host' }), workspace, {
      typescript: {
        command: ['sh', '-c', 'echo cannot start >&2; exit 3'],
        extensions: { '.ts': 'typescript' },
        rootMarkers: [],
      },
    });
    try {
      await expect(host.diagnostics(join(workspace, 'a.ts'))).rejects.toMatchObject({ code: 'LSP_START_FAILED' });
      await expect(host.diagnostics(join(workspace, 'a.ts'))).rejects.toThrow(/cannot start/);
    } finally {
      await host.dispose();
      await runtime.dispose();
    }
  });
});

describe('lsp tools refuse what they cannot serve', () => {
  it('a path outside the workspace, and a file no server serves, get clear errors', async () => {
    const { dsh, agent, workspace } = await rig({ 'notes.txt': 'hi\n' });
    const outside = await dsh.tools.call(agent, 'lsp_diagnostics', { path: '../../etc/passwd.ts' });
    expect((outside.data as { error: { code: string } }).error.code).toBe('OUTSIDE_WORKSPACE');
    const none = await dsh.tools.call(agent, 'lsp_symbols', { path: 'notes.txt' });
    expect((none.data as { error: { code: string } }).error.code).toBe('LSP_NO_SERVER');
    const missing = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'missing.ts' });
    expect((missing.data as { error: { code: string } }).error.code).toBe('LSP_FILE_UNREADABLE');
    // A FIFO (or a device) named like a source file neither hangs the host nor floods it.
    execFileSync('mkfifo', [join(workspace, 'pipe.ts')]);
    const fifo = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'pipe.ts' });
    expect((fifo.data as { error: { code: string } }).error.code).toBe('LSP_FILE_UNREADABLE');
    const bad = await dsh.tools.call(agent, 'lsp_hover', { path: 'a.ts', line: 0, column: 1 });
    expect((bad.data as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('config.lsp', () => {
  it('adds a language server from the config (file extensions and all) that the lsp tools then use', async () => {
    const workspace = tempDir('dsh-lsp-config-');
    writeFileSync(join(workspace, 'a.fake'), 'x\ny\n');
    const dsh = await compose({
      preset: 'full',
      config: {
        workspace,
        sandbox: { mode: 'danger-full-access' },
        lsp: {
          servers: { fake: { command: [process.execPath, LATE_SERVER, 'quiet'], extensions: { '.fake': 'fake' } } },
        },
      },
    });
    open.push(dsh);
    const r = await dsh.tools.call(dsh.createAgent('a'), 'lsp_diagnostics', { path: 'a.fake' });
    expect(r.text, r.text).toContain('the real error');
    expect((dsh.dumpConfig().config as { lsp: unknown }).lsp).toMatchObject({
      servers: { fake: { extensions: { '.fake': 'fake' }, rootMarkers: [] } },
    });
  });

  it('refuses a server that is not well formed, naming the field', async () => {
    const workspace = tempDir('dsh-lsp-config-');
    const bad = (servers: unknown) => compose({ config: { workspace, lsp: { servers } as never } });
    await expect(bad({ x: { command: [], extensions: { '.x': 'x' } } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      data: { field: 'lsp.servers.x.command' },
    });
    await expect(bad({ x: { command: ['x'], extensions: { x: 'x' } } })).rejects.toMatchObject({
      data: { field: 'lsp.servers.x.extensions' },
    });
    await expect(bad({ x: { command: ['x'], extensions: { '.x': 'x' }, port: 1 } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});

describe('a file deleted while the server holds it open', () => {
  it('is closed there: its importer then reports the missing module (typescript-language-server)', async () => {
    const { dsh, agent } = await rig({
      'tsconfig.json': '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
      'src/lib.ts': 'export const one: number = 1;\n',
      'src/main.ts': "import { one } from './lib';\n\nexport const two: number = one + 1;\n",
    });
    // Both files open on the server (a query opens its file): a definition lands in lib.ts.
    expect((await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'src/lib.ts' })).text).toBe('No diagnostics.');
    const def = await dsh.tools.call(agent, 'lsp_definition', { path: 'src/main.ts', line: 3, column: 28 });
    expect(def.text).toContain('src/lib.ts:1:');
    expect((await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'src/main.ts' })).text).toBe('No diagnostics.');
    await dsh.tools.call(agent, 'bash', { command: 'rm src/lib.ts' });
    const gone = await waitFor(async () => {
      const r = await dsh.tools.call(agent, 'lsp_diagnostics', { path: 'src/main.ts' });
      return /Cannot find module '\.\/lib'/.test(r.text) ? r : null;
    }, 'the importer to see lib.ts gone');
    expect(gone.text).toMatch(/src\/main\.ts:1:/);
  });
});
