import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./packages/${path}/src/index.ts`, import.meta.url));

/** Tests run the TypeScript sources of every workspace package directly. */
const PACKAGES: Record<string, string> = {
  '@dsh/core': 'core',
  '@dsh/subprocess-local': 'subprocess/subprocess-local',
  '@dsh/subprocess': 'subprocess/subprocess',
  '@dsh/sandbox': 'sandbox/sandbox',
  '@dsh/shell': 'shell/shell',
  '@dsh/bash-local': 'shell/bash-local',
  '@dsh/jobs': 'jobs/jobs',
  '@dsh/tool-bash': 'tools/tool-bash',
  '@dsh/terminal': 'terminal/terminal',
  '@dsh/terminal-bash': 'terminal/terminal-bash',
  '@dsh/tool-terminal': 'tools/tool-terminal',
  '@dsh/tool-bash-persistent': 'tools/tool-bash-persistent',
  '@dsh/mcp': 'mcp',
  dsh: 'dsh',
};

export default defineConfig({
  resolve: {
    alias: Object.entries(PACKAGES).map(([find, dir]) => ({ find: new RegExp(`^${find}$`), replacement: src(dir) })),
  },
  test: {
    pool: 'forks',
    reporters: ['default', './scripts/summary-reporter.ts'],
    include: ['packages/**/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
