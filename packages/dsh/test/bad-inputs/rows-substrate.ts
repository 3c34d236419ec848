/**
 * Bad inputs of ctx.subprocess (the local runtime): spec fields, NUL bytes, oversize argv and
 * env, limits, odd output, reads out of range, use after dispose.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { type BadInput, spec, started, thrown } from './observe.js';

const L = 'subprocess';

export const SUBSTRATE_ROWS: BadInput[] = [
  {
    layer: L,
    input: 'argv is empty',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ argv: [] }))),
  },
  {
    layer: L,
    input: 'argv is a string',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ argv: 'ls -l' }))),
  },
  {
    layer: L,
    input: 'a relative program path (bin/tool)',
    expect: 'DshError RELATIVE_EXECUTABLE',
    run: (r) => thrown(() => r.runtime.spawn(spec({ argv: ['bin/tool'] }))),
  },
  {
    layer: L,
    input: 'a NUL byte in an argument',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ argv: ['echo', 'a\0b'] }))),
  },
  {
    layer: L,
    input: 'a NUL byte in an env value',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ env: { A: 'x\0y' } }))),
  },
  {
    layer: L,
    input: 'a NUL byte in an env name',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ env: { 'A\0': 'x' } }))),
  },
  {
    layer: L,
    input: 'an env name with "="',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ env: { 'A=B': 'x' } }))),
  },
  {
    layer: L,
    input: 'a NUL byte in cwd',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ cwd: '/tmp\0x' }))),
  },
  {
    layer: L,
    input: 'a relative cwd',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ cwd: 'tmp' }))),
  },
  {
    layer: L,
    input: 'a missing cwd',
    expect: 'start error CWD_NOT_FOUND',
    run: (r) => started(() => r.runtime.spawn(spec({ cwd: '/no/such/dir' }))),
  },
  {
    layer: L,
    input: 'cwd is a file',
    expect: 'start error CWD_NOT_FOUND',
    run: (r) => started(() => r.runtime.spawn(spec({ cwd: '/etc/hostname' }))),
  },
  {
    layer: L,
    input: 'a 1 MB argument',
    expect: 'start error ARGUMENTS_TOO_LONG',
    run: (r) => started(() => r.runtime.spawn(spec({ argv: ['echo', 'x'.repeat(1 << 20)] }))),
  },
  {
    layer: L,
    input: 'an environment of 5,000 × 1 KB values',
    expect: 'start error ARGUMENTS_TOO_LONG',
    run: (r) =>
      started(() =>
        r.runtime.spawn(
          spec({ env: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`V${i}`, 'x'.repeat(1000)])) }),
        ),
      ),
  },
  {
    layer: L,
    input: 'graceMs negative',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ graceMs: -1 }))),
  },
  {
    layer: L,
    input: 'graceMs NaN',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ graceMs: Number.NaN }))),
  },
  {
    layer: L,
    input: 'graceMs 10^12',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ graceMs: 1e12 }))),
  },
  {
    layer: L,
    input: 'collect maxBytes -1',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ stdout: { kind: 'collect', maxBytes: -1 } }))),
  },
  {
    layer: L,
    input: 'collect maxBytes 0',
    expect: 'exit 0; nothing kept, every byte counted, lossy',
    run: async (r) => {
      const h = r.runtime.spawn(spec({ argv: ['echo', 'hello'], stdout: { kind: 'collect', maxBytes: 0 } }));
      const o = await h.done;
      const read = h.stdoutReader?.read(0);
      const counted = read?.text === '' && h.stdoutReader?.totalBytes === 6 && read.lossy;
      return `exit ${o.exitCode}; ${counted ? 'nothing kept, every byte counted, lossy' : 'unexpected'}`;
    },
  },
  {
    layer: L,
    input: 'collect maxBytes NaN',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ stdout: { kind: 'collect', maxBytes: Number.NaN } }))),
  },
  {
    layer: L,
    input: 'a relative spill directory',
    expect: 'DshError INVALID_SPEC',
    run: (r) =>
      thrown(() =>
        r.runtime.spawn(spec({ stdout: { kind: 'collect', maxBytes: 10, spill: { dir: 'spill', maxBytes: 100 } } })),
      ),
  },
  {
    layer: L,
    input: 'stdin bytes of a number',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ stdin: { kind: 'bytes', data: 42 } }))),
  },
  {
    layer: L,
    input: 'an unknown stdout kind',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ stdout: { kind: 'file' } }))),
  },
  {
    layer: L,
    input: 'an unknown spec field',
    expect: 'DshError INVALID_SPEC',
    run: (r) => thrown(() => r.runtime.spawn(spec({ bogus: 1 }))),
  },
  {
    layer: L,
    input: 'a program not on PATH',
    expect: 'start error EXECUTABLE_NOT_FOUND',
    run: (r) => started(() => r.runtime.spawn(spec({ argv: ['dsh-no-such-program'] }))),
  },
  {
    layer: L,
    input: 'a file without an execute bit',
    expect: 'start error NOT_EXECUTABLE',
    run: (r) => {
      const file = join(r.dir, 'plain.sh');
      writeFileSync(file, 'echo hi\n', { mode: 0o644 });
      return started(() => r.runtime.spawn(spec({ argv: [file] })));
    },
  },
  {
    layer: L,
    input: 'non-UTF-8 output',
    expect: 'exit 0; bytes counted exactly, invalid bytes read as U+FFFD',
    run: async (r) => {
      const h = r.runtime.spawn(spec({ argv: ['printf', 'a\\377\\376b'] }));
      const o = await h.done;
      const read = h.stdoutReader?.read(0);
      return `exit ${o.exitCode}; ${h.stdoutReader?.totalBytes === 4 && read?.text === 'a\uFFFD\uFFFDb' ? 'bytes counted exactly, invalid bytes read as U+FFFD' : JSON.stringify(read?.text)}`;
    },
  },
  {
    layer: L,
    input: 'a 100 MB line into a 1 MiB collector',
    expect: 'exit 0; the last 1 MiB kept, 100,000,000 bytes counted, lossy',
    run: async (r) => {
      const h = r.runtime.spawn(
        spec({
          argv: ['sh', '-c', "head -c 100000000 /dev/zero | tr '\\0' x"],
          stdout: { kind: 'collect', maxBytes: 1 << 20 },
        }),
      );
      const o = await h.done;
      const read = h.stdoutReader?.read(0);
      const kept = read?.text.length === 1 << 20 && h.stdoutReader?.totalBytes === 100_000_000 && read.lossy;
      return `exit ${o.exitCode}; ${kept ? 'the last 1 MiB kept, 100,000,000 bytes counted, lossy' : 'unexpected'}`;
    },
  },
  {
    layer: L,
    input: 'read(-1) and read(past the end) of a collected stream',
    expect: 'DshError INVALID_ARGUMENT, DshError INVALID_ARGUMENT',
    run: async (r) => {
      const h = r.runtime.spawn(spec({ argv: ['echo', 'hi'] }));
      await h.done;
      return `${await thrown(() => h.stdoutReader?.read(-1))}, ${await thrown(() => h.stdoutReader?.read(99))}`;
    },
  },
  {
    layer: L,
    input: 'spawn after dispose; dispose twice',
    expect: 'DshError DISPOSED; no error',
    run: async () => {
      const rt = new LocalSubprocessRuntime();
      await rt.dispose();
      return `${await thrown(() => rt.spawn(spec()))}; ${await thrown(() => rt.dispose())}`;
    },
  },
  {
    layer: L,
    input: 'a terminal of 0 columns',
    expect: 'DshError INVALID_SPEC',
    run: (r) =>
      thrown(() =>
        r.runtime.spawnTerminal({ argv: ['sh'], cwd: '/', env: {}, cols: 0, rows: 24, graceMs: 100 } as never),
      ),
  },
  {
    layer: L,
    input: "containment: 'bogus'",
    expect: 'DshError INVALID_ARGUMENT',
    run: () => thrown(() => new LocalSubprocessRuntime({ containment: 'bogus' as never })),
  },
];
