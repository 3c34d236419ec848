import { chmodSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOfSync as codeOf } from '../../../../test/support.js';
import { runtime, spec, tempDir } from './helpers.js';

const node = process.execPath;
const printArgv = 'process.stdout.write(JSON.stringify(process.argv.slice(1)))';

describe('starting programs', () => {
  it('passes shell metacharacters in argv literally', async () => {
    const args = ['$(echo pwned)', '; rm -rf /', '`id`', '*', '"a b"', "'c'", '| cat', '&&', '$HOME', ''];
    const h = runtime().spawn(spec([node, '-e', printArgv, ...args]));
    const outcome = await h.done;
    expect(outcome).toEqual({ exitCode: 0, signal: null, error: null });
    expect(JSON.parse(h.stdoutReader?.read(0).text ?? '')).toEqual(args);
  });

  it('throws RELATIVE_EXECUTABLE synchronously for a relative program with a separator', () => {
    const rt = runtime();
    expect(codeOf(() => rt.spawn(spec(['./x'])))).toBe('RELATIVE_EXECUTABLE');
    expect(codeOf(() => rt.spawn(spec(['bin/x'])))).toBe('RELATIVE_EXECUTABLE');
  });

  it('resolves done with EXECUTABLE_NOT_FOUND for a missing program, never rejecting', async () => {
    const h = runtime().spawn(spec(['dsh-no-such-program-xyz']));
    await expect(h.done).resolves.toMatchObject({
      exitCode: null,
      signal: null,
      error: { code: 'EXECUTABLE_NOT_FOUND' },
    });
    expect(h.pid).toBeUndefined();
    expect(h.stdoutReader?.settled).toBe(true);
    await h.terminate();
    await h.waitForExit();
  });

  it('resolves done with EXECUTABLE_NOT_FOUND for a missing absolute path', async () => {
    const h = runtime().spawn(spec([join(tempDir(), 'missing')]));
    expect((await h.done).error?.code).toBe('EXECUTABLE_NOT_FOUND');
  });

  it('resolves done with CWD_NOT_FOUND for a missing working directory', async () => {
    const h = runtime().spawn(spec(['true'], { cwd: join(tempDir(), 'gone') }));
    expect((await h.done).error?.code).toBe('CWD_NOT_FOUND');
  });

  it('resolves done with NOT_EXECUTABLE for a file without exec permission', async () => {
    const file = join(tempDir(), 'script.sh');
    writeFileSync(file, '#!/bin/sh\necho hi\n');
    chmodSync(file, 0o644);
    const h = runtime().spawn(spec([file]));
    expect((await h.done).error?.code).toBe('NOT_EXECUTABLE');
  });

  it('reports exit codes and signals of the direct child', async () => {
    const rt = runtime();
    expect(await rt.spawn(spec(['sh', '-c', 'exit 7'])).done).toEqual({ exitCode: 7, signal: null, error: null });
    expect(await rt.spawn(spec(['sh', '-c', 'kill -KILL $$'])).done).toEqual({
      exitCode: null,
      signal: 'SIGKILL',
      error: null,
    });
  });

  it('starts the child in its own session and process group', async () => {
    const h = runtime().spawn(spec(['sh', '-c', 'cat /proc/$$/stat']));
    await h.done;
    const stat = h.stdoutReader?.read(0).text ?? '';
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    expect(Number(fields[2])).toBe(h.pid); // pgid
    expect(Number(fields[3])).toBe(h.pid); // session id
  });

  it('does not start at all when the signal is already aborted', async () => {
    const h = runtime().spawn(spec(['true'], { signal: AbortSignal.abort() }));
    expect((await h.done).error?.code).toBe('ABORTED');
    expect(h.pid).toBeUndefined();
  });

  it('throws DISPOSED for a spawn after dispose', async () => {
    const rt = runtime();
    await rt.dispose();
    expect(codeOf(() => rt.spawn(spec(['true'])))).toBe('DISPOSED');
  });
});

describe('resolveExecutable', () => {
  it('resolves a bare name on PATH to its canonical path', async () => {
    const resolved = await runtime().resolveExecutable('sh', {});
    expect(resolved).toBe(realpathSync(resolved));
    expect(resolved.startsWith('/')).toBe(true);
  });

  it('searches only the merged PATH and fails loudly when the name is absent', async () => {
    const dir = tempDir();
    const tool = join(dir, 'mytool');
    writeFileSync(tool, '#!/bin/sh\necho mine\n');
    chmodSync(tool, 0o755);
    const rt = runtime();
    await expect(rt.resolveExecutable('mytool', {})).rejects.toMatchObject({ code: 'EXECUTABLE_NOT_FOUND' });
    expect(await rt.resolveExecutable('mytool', { PATH: `relative/dir:${dir}` })).toBe(realpathSync(tool));
    await expect(rt.resolveExecutable('sh', { PATH: undefined })).rejects.toMatchObject({
      code: 'EXECUTABLE_NOT_FOUND',
    });
    await expect(rt.resolveExecutable('./mytool', {})).rejects.toMatchObject({ code: 'RELATIVE_EXECUTABLE' });
    const h = rt.spawn(spec(['mytool'], { env: { PATH: dir } }));
    await h.done;
    expect(h.stdoutReader?.read(0).text).toBe('mine\n');
  });
});

describe('synchronous spawn failures', () => {
  it('an argument over the kernel limit (E2BIG) resolves done with ARGUMENTS_TOO_LONG', async () => {
    const rt = runtime();
    const h = rt.spawn(spec(['true', 'x'.repeat(200_000)]));
    const outcome = await h.done;
    expect(outcome.error?.code).toBe('ARGUMENTS_TOO_LONG');
    expect(outcome.error?.message).toMatch(/E2BIG/);
    expect(h.pid).toBeUndefined();
    expect(rt.trackedCount).toBe(0);
  });
});
