import { isDshError } from '@dsh/core';
import { type SpawnSpec, validateSpawnSpec, validateTerminalSpawnSpec } from '@dsh/subprocess';
import { describe, expect, it } from 'vitest';

const good: SpawnSpec = {
  argv: ['true'],
  cwd: '/tmp',
  env: {},
  stdin: { kind: 'ignore' },
  stdout: { kind: 'collect', maxBytes: 10, spill: { dir: '/tmp/x', maxBytes: 100 } },
  stderr: { kind: 'pipe' },
  graceMs: 100,
};

function failure(spec: unknown, validate: (s: unknown) => void = validateSpawnSpec): { code: string; field: unknown } {
  try {
    validate(spec);
  } catch (error) {
    if (!isDshError(error)) throw error;
    return { code: error.code, field: error.data.field };
  }
  return { code: 'none', field: undefined };
}

const omit = (key: keyof SpawnSpec): unknown => {
  const copy: Record<string, unknown> = { ...good };
  delete copy[key];
  return copy;
};

describe('validateSpawnSpec', () => {
  it('accepts a complete spec', () => {
    expect(failure(good).code).toBe('none');
    expect(failure({ ...good, signal: new AbortController().signal }).code).toBe('none');
  });

  const cases: [string, unknown, string][] = [
    ['not an object', 42, 'spec'],
    ['missing argv', omit('argv'), 'argv'],
    ['empty argv', { ...good, argv: [] }, 'argv'],
    ['non-string arg', { ...good, argv: ['true', 3] }, 'argv[1]'],
    ['empty program', { ...good, argv: [''] }, 'argv[0]'],
    ['NUL in arg', { ...good, argv: ['true', 'a\0b'] }, 'argv[1]'],
    ['missing cwd', omit('cwd'), 'cwd'],
    ['relative cwd', { ...good, cwd: 'tmp' }, 'cwd'],
    ['missing env', omit('env'), 'env'],
    ['env array', { ...good, env: [] }, 'env'],
    ['env number value', { ...good, env: { A: 1 } }, 'env.A'],
    ['env name with =', { ...good, env: { 'A=B': 'x' } }, 'env.A=B'],
    ['missing stdin', omit('stdin'), 'stdin'],
    ['bad stdin kind', { ...good, stdin: { kind: 'file' } }, 'stdin.kind'],
    ['bytes without data', { ...good, stdin: { kind: 'bytes' } }, 'stdin.data'],
    ['missing stdout', omit('stdout'), 'stdout'],
    ['bad stdout kind', { ...good, stdout: { kind: 'null' } }, 'stdout.kind'],
    ['negative maxBytes', { ...good, stdout: { kind: 'collect', maxBytes: -1 } }, 'stdout.maxBytes'],
    ['fractional maxBytes', { ...good, stdout: { kind: 'collect', maxBytes: 1.5 } }, 'stdout.maxBytes'],
    ['huge maxBytes', { ...good, stdout: { kind: 'collect', maxBytes: 2 ** 40 } }, 'stdout.maxBytes'],
    ['missing collect maxBytes', { ...good, stderr: { kind: 'collect' } }, 'stderr.maxBytes'],
    [
      'relative spill dir',
      { ...good, stdout: { kind: 'collect', maxBytes: 1, spill: { dir: 'x', maxBytes: 1 } } },
      'stdout.spill.dir',
    ],
    [
      'negative spill max',
      { ...good, stdout: { kind: 'collect', maxBytes: 1, spill: { dir: '/x', maxBytes: -5 } } },
      'stdout.spill.maxBytes',
    ],
    [
      'unknown spill key',
      { ...good, stdout: { kind: 'collect', maxBytes: 1, spill: { dir: '/x', maxBytes: 1, mode: 1 } } },
      'stdout.spill.mode',
    ],
    ['missing graceMs', omit('graceMs'), 'graceMs'],
    ['negative graceMs', { ...good, graceMs: -1 }, 'graceMs'],
    ['NaN graceMs', { ...good, graceMs: Number.NaN }, 'graceMs'],
    ['bad signal', { ...good, signal: {} }, 'signal'],
    ['unknown field (typo)', { ...good, timeout: 5 }, 'timeout'],
    ['unknown disposition field', { ...good, stderr: { kind: 'pipe', maxBytes: 1 } }, 'stderr.maxBytes'],
  ];
  it.each(cases)('rejects %s with INVALID_SPEC naming the field', (_name, spec, field) => {
    expect(failure(spec)).toEqual({ code: 'INVALID_SPEC', field });
  });

  it('rejects a relative program with a separator as RELATIVE_EXECUTABLE', () => {
    expect(failure({ ...good, argv: ['./run.sh'] }).code).toBe('RELATIVE_EXECUTABLE');
    expect(failure({ ...good, argv: ['bin/tool'] }).code).toBe('RELATIVE_EXECUTABLE');
    expect(failure({ ...good, argv: ['/bin/true'] }).code).toBe('none');
  });
});

describe('validateTerminalSpawnSpec', () => {
  const term = { argv: ['bash'], cwd: '/', env: {}, cols: 80, rows: 24, graceMs: 100 };
  it('accepts a complete spec and rejects bad dimensions', () => {
    expect(failure(term, validateTerminalSpawnSpec).code).toBe('none');
    expect(failure({ ...term, cols: 0 }, validateTerminalSpawnSpec)).toEqual({ code: 'INVALID_SPEC', field: 'cols' });
    expect(failure({ ...term, rows: -1 }, validateTerminalSpawnSpec)).toEqual({ code: 'INVALID_SPEC', field: 'rows' });
    expect(failure({ ...term, stdin: { kind: 'pipe' } }, validateTerminalSpawnSpec)).toEqual({
      code: 'INVALID_SPEC',
      field: 'stdin',
    });
  });
});
