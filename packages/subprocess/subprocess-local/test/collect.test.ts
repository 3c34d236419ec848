import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtime, spec, tempDir } from './helpers.js';

/** A node one-liner printing `n` bytes of a repeating digit pattern. */
function printBytes(n: number): string[] {
  return [
    process.execPath,
    '-e',
    `const n=${n};const b=Buffer.alloc(n);for(let i=0;i<n;i++)b[i]=48+(i%10);process.stdout.write(b)`,
  ];
}
const pattern = (from: number, to: number): string =>
  Array.from({ length: to - from }, (_, i) => String((from + i) % 10)).join('');

describe('collect', () => {
  it('keeps the tail, counts every byte, and flags lossy reads', async () => {
    const h = runtime().spawn(spec(printBytes(10_000), { stdout: { kind: 'collect', maxBytes: 1000 } }));
    await h.done;
    const r = h.stdoutReader;
    if (!r) throw new Error('no reader');
    expect(r.totalBytes).toBe(10_000);
    expect(r.settled).toBe(true);
    const all = r.read(0);
    expect(all).toEqual({
      text: pattern(9000, 10_000),
      nextOffset: 10_000,
      lossy: true,
      spillPath: null,
      bytes: 1000,
      invalidUtf8: false,
    });
    expect(r.read(9500)).toEqual({
      text: pattern(9500, 10_000),
      nextOffset: 10_000,
      lossy: false,
      spillPath: null,
      bytes: 500,
      invalidUtf8: false,
    });
    expect(r.read(10_000)).toEqual({
      text: '',
      nextOffset: 10_000,
      lossy: false,
      spillPath: null,
      bytes: 0,
      invalidUtf8: false,
    });
    expect(() => r.read(10_001)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => r.read(-1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('two readers never steal from each other, and reads after settle give the batch result', async () => {
    const h = runtime().spawn(
      spec(['sh', '-c', 'for i in 1 2 3 4 5; do echo line$i; done; echo err >&2'], {
        stdout: { kind: 'collect', maxBytes: 4096 },
      }),
    );
    await h.done;
    const r = h.stdoutReader;
    if (!r) throw new Error('no reader');
    const a1 = r.read(0);
    const b1 = r.read(0);
    expect(a1).toEqual(b1);
    const a2 = r.read(a1.nextOffset);
    expect(a2.text).toBe('');
    const b2 = r.read(6);
    expect(b2.text).toBe('line2\nline3\nline4\nline5\n');
    expect(r.read(0).text).toBe('line1\nline2\nline3\nline4\nline5\n');
    expect(h.stderrReader?.read(0).text).toBe('err\n');
  });

  it('incremental reads while the process runs join up to the whole stream', async () => {
    const h = runtime().spawn(
      spec(['sh', '-c', 'for i in $(seq 1 200); do echo "é$i"; done'], {
        stdout: { kind: 'collect', maxBytes: 1 << 20 },
      }),
    );
    const r = h.stdoutReader;
    if (!r) throw new Error('no reader');
    let offset = 0;
    let text = '';
    while (!r.settled) {
      const got = r.read(offset);
      text += got.text;
      offset = got.nextOffset;
      await new Promise((res) => setImmediate(res));
    }
    text += r.read(offset).text;
    expect(text).toBe(Array.from({ length: 200 }, (_, i) => `é${i + 1}\n`).join(''));
  });

  it('spills the complete stream to a private file when it outgrows the tail', async () => {
    const dir = join(tempDir(), 'spill');
    const h = runtime().spawn(
      spec(printBytes(100_000), { stdout: { kind: 'collect', maxBytes: 1000, spill: { dir, maxBytes: 1 << 20 } } }),
    );
    await h.done;
    const read = h.stdoutReader?.read(0);
    const spillPath = read?.spillPath;
    if (!spillPath) throw new Error('no spill path');
    expect(read?.lossy).toBe(true);
    expect(readFileSync(spillPath, 'latin1')).toBe(pattern(0, 100_000));
    expect(statSync(spillPath).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('writes no spill file while the stream fits in the tail', async () => {
    const dir = tempDir();
    const h = runtime().spawn(
      spec(printBytes(500), { stdout: { kind: 'collect', maxBytes: 1000, spill: { dir, maxBytes: 1 << 20 } } }),
    );
    await h.done;
    expect(h.stdoutReader?.read(0)).toMatchObject({ text: pattern(0, 500), lossy: false, spillPath: null });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('deletes a spill that outgrew its limit and offers no path', async () => {
    const dir = tempDir();
    const h = runtime().spawn(
      spec(printBytes(100_000), { stdout: { kind: 'collect', maxBytes: 1000, spill: { dir, maxBytes: 10_000 } } }),
    );
    await h.done;
    expect(h.stdoutReader?.read(0)).toMatchObject({ text: pattern(99_000, 100_000), lossy: true, spillPath: null });
    expect(h.stdoutReader?.totalBytes).toBe(100_000);
    expect(readdirSync(dir)).toEqual([]);
  });
});
