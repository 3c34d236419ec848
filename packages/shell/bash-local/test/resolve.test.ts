import { isDshError } from '@dsh/core';
import type { ShellExecRequest } from '@dsh/shell';
import { describe, expect, it } from 'vitest';
import { executor } from './helpers.js';

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (isDshError(error, 'INVALID_ARGUMENT')) return error.data.field;
    throw error;
  }
  return 'no error';
}

describe('LocalBashExecutor.resolve', () => {
  it('fills every field from the config and clamps the timeout', () => {
    const ex = executor({ cwd: '/tmp' });
    const spec = ex.resolve({ command: 'ls' });
    expect(spec).toEqual({
      command: 'ls',
      workdir: '/tmp',
      timeoutMs: 120_000,
      stdoutMaxBytes: 1024 * 1024,
      stderrMaxBytes: 1024 * 1024,
      spillDir: ex.config.spillDir,
      maxSpillBytes: 256 * 1024 * 1024,
      graceMs: 300,
      stdin: null,
      env: {},
      dshEnv: {},
      sandbox: null,
    });
    expect(ex.resolve({ command: 'ls', timeoutMs: 10_000_000 }).timeoutMs).toBe(600_000);
    expect(ex.resolve({ command: 'ls', timeoutMs: 1.5 }).timeoutMs).toBe(2);
  });

  it('passes the trusted fields through', () => {
    const spec = executor().resolve({
      command: 'x',
      stdin: 'in',
      env: { A: '1', B: undefined },
      dshEnv: { DSH_JOB: 'j' },
      stdoutMaxBytes: 10,
      workdir: '/',
    });
    expect(spec).toMatchObject({
      stdin: 'in',
      env: { A: '1', B: undefined },
      dshEnv: { DSH_JOB: 'j' },
      stdoutMaxBytes: 10,
    });
  });

  const bad: [string, unknown, string][] = [
    ['empty command', { command: '  ' }, 'command'],
    ['non-string command', { command: 3 }, 'command'],
    ['zero timeout', { command: 'x', timeoutMs: 0 }, 'timeoutMs'],
    ['negative timeout', { command: 'x', timeoutMs: -5 }, 'timeoutMs'],
    ['NaN timeout', { command: 'x', timeoutMs: Number.NaN }, 'timeoutMs'],
    ['relative workdir', { command: 'x', workdir: 'src' }, 'workdir'],
    ['numeric stdin', { command: 'x', stdin: 5 }, 'stdin'],
    ['env with number', { command: 'x', env: { A: 1 } }, 'env.A'],
    ['dshEnv without prefix', { command: 'x', dshEnv: { JOB: 'j' } }, 'dshEnv.JOB'],
    ['huge stdoutMaxBytes', { command: 'x', stdoutMaxBytes: 2 ** 40 }, 'stdoutMaxBytes'],
    ['unknown field', { command: 'x', timeout: 5 }, 'timeout'],
    ['bad sandbox', { command: 'x', sandbox: { mode: 'yolo', writableRoots: [], network: true } }, 'sandbox.mode'],
  ];
  it.each(bad)('rejects %s with INVALID_ARGUMENT naming the field', (_name, request, field) => {
    const ex = executor();
    expect(fieldOf(() => ex.resolve(request as ShellExecRequest))).toBe(field);
  });

  it('rejects a malformed config naming the option', () => {
    expect(fieldOf(() => executor({ timeoutMs: -1 }))).toBe('timeoutMs');
    expect(fieldOf(() => executor({ timeoutMs: 700_000 }))).toBe('timeoutMs');
    expect(fieldOf(() => executor({ spillDir: 'relative' }))).toBe('spillDir');
    expect(fieldOf(() => executor({ bash: './bash' }))).toBe('bash');
  });
});
