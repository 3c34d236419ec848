#!/usr/bin/env node
// The layer check of DESIGN §2: runs dependency-cruiser with .dependency-cruiser.cjs and fails
// on any violation, on a workspace package missing from tsconfig.depcruise.json, or when it
// scanned no module at all (a checker that saw nothing proves nothing).
// Usage: node scripts/check-layers.mjs [--root DIR]   (DIR defaults to the repository root)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rootArg = process.argv.indexOf('--root');
const root = rootArg > 0 ? resolve(process.argv[rootArg + 1]) : repo;
const fail = (msg) => {
  console.error(`layer check failed: ${msg}`);
  process.exit(1);
};

const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.depcruise.json'), 'utf8'));
const paths = tsconfig.compilerOptions?.paths ?? {};
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const ws of rootPkg.workspaces ?? []) {
  const pkgFile = join(root, ws, 'package.json');
  if (!existsSync(pkgFile)) fail(`workspace ${ws} has no package.json`);
  const { name } = JSON.parse(readFileSync(pkgFile, 'utf8'));
  if (!paths[name]) fail(`workspace package ${name} is missing from tsconfig.depcruise.json paths`);
}

const bin = join(repo, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
let out;
try {
  out = execFileSync(
    process.execPath,
    [bin, 'packages', '--config', join(repo, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
} catch (error) {
  // dependency-cruiser exits non-zero on violations; its JSON is still on stdout.
  out = error.stdout;
  if (!out) fail(`dependency-cruiser did not run: ${error.message}`);
}
const { summary } = JSON.parse(out);
const scanned = summary.totalCruised;
if (!(scanned > 0)) fail('dependency-cruiser scanned 0 modules; the check would prove nothing');
for (const v of summary.violations) {
  console.error(`  ${v.rule.name}: ${v.from} -> ${v.to}`);
}
if (summary.violations.length > 0) fail(`${summary.violations.length} violation(s) of the layer rule`);
console.log(
  `layer check passed: ${scanned} modules scanned, ${summary.totalDependenciesCruised} dependencies, 0 violations`,
);
