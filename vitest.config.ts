import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./packages/${path}/src/index.ts`, import.meta.url));

/** Tests run the TypeScript sources of every workspace package directly. */
const PACKAGES: Record<string, string> = {
  '@dsh/core': 'core',
  '@dsh/subprocess-local': 'subprocess/subprocess-local',
  '@dsh/subprocess-remote': 'subprocess/subprocess-remote',
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
  '@dsh/lsp': 'lsp',
  '@dsh/acp': 'acp',
  '@dsh/mcp': 'mcp',
  '@dsh/web': 'web',
  dsh: 'dsh',
};

/** Suites that test the ctx.subprocess contract (not the local provider's internals). */
const CHANNEL_SUITES = ['collect', 'env', 'start', 'stdio', 'tree', 'terminal'].map(
  (name) => `packages/subprocess/subprocess-local/test/${name}.test.ts`,
);

/** The subprocess, shell and terminal suites, run again against a world over ssh on loopback. */
const SSH_SUITES = [
  ...CHANNEL_SUITES,
  'packages/shell/bash-local/test/*.test.ts',
  'packages/terminal/terminal-bash/test/*.test.ts',
];

export default defineConfig({
  resolve: {
    alias: Object.entries(PACKAGES).map(([find, dir]) => ({ find: new RegExp(`^${find}$`), replacement: src(dir) })),
  },
  test: {
    pool: 'forks',
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'local', include: ['packages/**/test/**/*.test.ts', 'test/**/*.test.ts'] } },
      // The contract-level suites again, through a channel to a runtime server (DESIGN §15).
      { extends: true, test: { name: 'channel', include: CHANNEL_SUITES, env: { DSH_TEST_WORLD: 'channel' } } },
      // The same suites through a real sshd on loopback (DESIGN §15, remote worlds).
      {
        extends: true,
        test: { name: 'ssh', include: SSH_SUITES, globalSetup: ['test/ssh-setup.ts'], env: { DSH_TEST_WORLD: 'ssh' } },
      },
    ],
  },
});
