// Small helpers shared by the benchmark scripts.
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Milliseconds taken by `fn`, measured with the high-resolution clock. */
export async function timed(fn) {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Raw anchor: spawn, drain both pipes, resolve on 'close'. */
export function rawSpawn(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    child.stdout.on('data', (c) => {
      bytes += c.length;
    });
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, bytes }));
  });
}

/** Raw anchor for spill: drain stdout into a file with synchronous writes, resolve on 'close'. */
export function rawSpawnToFile(file, args, path) {
  return new Promise((resolve, reject) => {
    const fd = openSync(path, 'w', 0o600);
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => writeSync(fd, c));
    child.stderr.on('data', () => {});
    child.once('error', reject);
    child.once('close', (code) => {
      closeSync(fd);
      resolve({ code });
    });
  });
}

/** Runs `node script args…` and returns its stdout parsed as JSON. */
export function runJson(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited ${code}`)),
    );
  });
}

export const fmt = (n, digits = 2) => n.toFixed(digits);
