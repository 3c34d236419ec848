/**
 * The version of the `dsh` package, read from its package.json (one place to bump).
 */
import { readFileSync } from 'node:fs';

/** The dsh version. */
export const DSH_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
