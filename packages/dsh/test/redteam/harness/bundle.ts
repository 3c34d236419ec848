/**
 * The dsh every row runs: the self-contained bundles `npm run build` makes (packages/dsh/dist/
 * dsh.mjs and runtime-server.mjs), copied with a launcher into a directory every user can read,
 * next to the suite's Python probes. `DSH_REDTEAM_DIST` points at another dist directory.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBE_PY } from './probe-source.js';
import { PTYRUN_PY } from './ptyrun-source.js';

/** Where the suite's copy of dsh and its probes live. */
export interface Bundle {
  dir: string;
  /** `node <launcher> run …` is `dsh run …`. */
  launcher: string;
  probe: string;
  ptyrun: string;
}

const DIST = join(dirname(fileURLToPath(import.meta.url)), '../../../dist');

/** The dist directory the suite copies dsh from. */
export function distDir(): string {
  return process.env.DSH_REDTEAM_DIST ?? DIST;
}

/**
 * Copies dsh into `dir` (made 0755) and writes the probes.
 * @throws when the bundles are missing (run `npm run build`).
 */
export function installBundle(dir: string): Bundle {
  const dist = distDir();
  for (const name of ['dsh.mjs', 'runtime-server.mjs']) {
    if (!existsSync(join(dist, name))) throw new Error(`${join(dist, name)} is missing: run npm run build first`);
  }
  mkdirSync(join(dir, 'dist'), { recursive: true });
  for (const name of ['dsh.mjs', 'runtime-server.mjs']) copyFileSync(join(dist, name), join(dir, 'dist', name));
  const pkg = JSON.parse(readFileSync(join(dist, '../package.json'), 'utf8')) as { version: string };
  // The bundle reads its version from ../package.json.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ version: pkg.version, type: 'module' })}\n`);
  const launcher = join(dir, 'dist', 'launch.mjs');
  writeFileSync(
    launcher,
    [
      "import { main } from './dsh.mjs';",
      'main(process.argv.slice(2)).then(',
      '  (status) => { process.exitCode = status; },',
      "  (error) => { process.stderr.write('dsh: ' + (error?.message ?? error) + '\\n'); process.exitCode = 1; },",
      ');',
      '',
    ].join('\n'),
  );
  const probe = join(dir, 'probe.py');
  const ptyrun = join(dir, 'ptyrun.py');
  writeFileSync(probe, PROBE_PY);
  writeFileSync(ptyrun, PTYRUN_PY);
  for (const path of [dir, join(dir, 'dist')]) chmodSync(path, 0o755);
  return { dir, launcher, probe, ptyrun };
}
