import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./packages/${path}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@dsh/core': src('core'),
      '@dsh/subprocess-local': src('subprocess/subprocess-local'),
      '@dsh/subprocess': src('subprocess/subprocess'),
    },
  },
  test: {
    pool: 'forks',
    reporters: ['default', './scripts/summary-reporter.ts'],
    include: ['packages/**/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
