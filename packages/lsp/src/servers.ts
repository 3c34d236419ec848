/**
 * Which language server serves which files: per language, the command (argv), the file
 * extensions with their LSP language ids, and the files that mark a project root. The defaults
 * run the servers this package depends on, resolved from node_modules with this Node.js —
 * nothing is downloaded at run time.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DshError } from '@dsh/core';

/** One language server. */
export interface LanguageServerConfig {
  /** The program and its arguments (it must speak LSP on stdin/stdout). */
  command: string[];
  /** File extensions (with the dot) it serves, and the LSP language id of each. */
  extensions: Record<string, string>;
  /** Files or directories whose presence marks a project root (nearest wins; else the workspace). */
  rootMarkers: string[];
  /** `initializationOptions` sent with `initialize`. @default {} */
  initializationOptions?: Record<string, unknown>;
  /** Why this server cannot run here (its package is missing), told at first use. @default none */
  unavailable?: string;
}

const require = createRequire(import.meta.url);

/** The file a server's command needs where it runs: for `node script`, the script; else the program (null: found on PATH). */
export function programOf(config: LanguageServerConfig): string | null {
  const program = config.command.find((w, i) => i > 0 && w.startsWith('/')) ?? config.command[0];
  return program?.startsWith('/') ? program : null;
}

/** A package's bin script, run with this Node.js. */
function nodeBin(pkg: string, bin: string): string[] {
  const root = dirname(require.resolve(`${pkg}/package.json`));
  const manifest = require(`${pkg}/package.json`) as { bin: Record<string, string> | string };
  const rel = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin];
  if (!rel) throw new DshError('LSP_UNAVAILABLE', `${pkg} has no ${bin} program.`);
  return [process.execPath, join(root, rel)];
}

/** `make()`, or a server that says why it cannot run (a missing package is told at first use, not at mount). */
function orUnavailable(
  base: Omit<LanguageServerConfig, 'command'>,
  make: () => LanguageServerConfig,
): LanguageServerConfig {
  try {
    return make();
  } catch (error) {
    return { ...base, command: [], unavailable: error instanceof Error ? error.message : String(error) };
  }
}

/** The default servers: TypeScript/JavaScript (typescript-language-server) and Python (pyright). */
export function defaultServers(): Record<string, LanguageServerConfig> {
  const ts = {
    extensions: {
      '.ts': 'typescript',
      '.tsx': 'typescriptreact',
      '.mts': 'typescript',
      '.cts': 'typescript',
      '.js': 'javascript',
      '.jsx': 'javascriptreact',
      '.mjs': 'javascript',
      '.cjs': 'javascript',
    },
    rootMarkers: ['tsconfig.json', 'jsconfig.json', 'package.json'],
  };
  const py = {
    extensions: { '.py': 'python', '.pyi': 'python' },
    rootMarkers: ['pyrightconfig.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'],
  };
  return {
    typescript: orUnavailable(ts, () => ({
      ...ts,
      command: [...nodeBin('typescript-language-server', 'typescript-language-server'), '--stdio'],
      initializationOptions: {
        tsserver: { path: require.resolve('typescript/lib/tsserver.js') },
        // A rename renames the symbol everywhere (lsp_rename), not an import alias of it.
        preferences: { providePrefixAndSuffixTextForRename: false },
      },
    })),
    python: orUnavailable(py, () => ({ ...py, command: [...nodeBin('pyright', 'pyright-langserver'), '--stdio'] })),
  };
}
