import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutputCollector } from '@dsh/subprocess';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dsh-collector-'));
  dirs.push(d);
  return d;
}

/** Cuts `bytes` at the given (sorted, deduplicated) positions. */
function cut(bytes: Buffer, positions: number[]): Buffer[] {
  const points = [...new Set(positions.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let last = 0;
  for (const p of [...points, bytes.length]) {
    parts.push(bytes.subarray(last, p));
    last = p;
  }
  return parts;
}

const unicodeText = fc.string({ unit: 'grapheme', maxLength: 200 });

describe('OutputCollector', () => {
  it('property: the kept text never contains U+FFFD, is a suffix of the stream, and fits maxBytes', () => {
    fc.assert(
      fc.property(unicodeText, fc.array(fc.nat(), { maxLength: 30 }), fc.nat({ max: 400 }), (raw, cuts, maxBytes) => {
        const bytes = Buffer.from(raw, 'utf8');
        const text = bytes.toString('utf8'); // lone surrogates in the generated string encode as U+FFFD
        fc.pre(!text.includes('\uFFFD')); // the claim is about valid UTF-8 streams
        const c = new OutputCollector({ maxBytes });
        for (const part of cut(bytes, cuts)) c.push(part);
        c.finish();
        const read = c.read(0);
        expect(read.text.includes('\uFFFD')).toBe(false);
        expect(text.endsWith(read.text)).toBe(true);
        expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(maxBytes);
        expect(c.totalBytes).toBe(bytes.length);
        expect(read.nextOffset).toBe(bytes.length);
        expect(read.lossy).toBe(bytes.length > maxBytes);
      }),
      { numRuns: 500 },
    );
  });

  it('property: incremental reads during the stream never split a character and lose nothing', () => {
    fc.assert(
      fc.property(unicodeText, fc.array(fc.nat(), { maxLength: 30 }), (raw, cuts) => {
        const bytes = Buffer.from(raw, 'utf8');
        const text = bytes.toString('utf8');
        fc.pre(!text.includes('\uFFFD'));
        const c = new OutputCollector({ maxBytes: bytes.length });
        let got = '';
        let offset = 0;
        for (const part of cut(bytes, cuts)) {
          c.push(part);
          const r = c.read(offset);
          expect(r.text.includes('\uFFFD')).toBe(false);
          expect(r.lossy).toBe(false);
          got += r.text;
          offset = r.nextOffset;
        }
        c.finish();
        got += c.read(offset).text;
        expect(got).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('holds back an unfinished character until it completes, and skips a partial one at the tail start', () => {
    const c = new OutputCollector({ maxBytes: 5 });
    const euro = Buffer.from('€', 'utf8'); // 3 bytes
    c.push(Buffer.from('ab'));
    c.push(euro.subarray(0, 2));
    expect(c.read(0)).toMatchObject({ text: 'ab', nextOffset: 2 });
    c.push(euro.subarray(2));
    expect(c.read(2)).toMatchObject({ text: '€', nextOffset: 5 });
    c.push(Buffer.from('x')); // tail now holds 'b€x' minus 'b'? 6 bytes total, 5 kept: 'b' + '€' + 'x'
    expect(c.read(0)).toMatchObject({ text: 'b€x', lossy: true });
    c.push(Buffer.from('y')); // kept: '€xy' from offset 2
    c.push(Buffer.from('z')); // kept: 2 bytes of '€' + 'xyz' → partial char skipped
    expect(c.read(0)).toMatchObject({ text: 'xyz', lossy: true, nextOffset: 8 });
  });

  it('keeps a dropped-head read lossy, counts all bytes, and accepts maxBytes 0', () => {
    const c = new OutputCollector({ maxBytes: 0 });
    c.push(Buffer.from('hello'));
    c.finish();
    expect(c.read(0)).toEqual({ text: '', nextOffset: 5, lossy: true, spillPath: null, bytes: 0, invalidUtf8: false });
    expect(c.read(5)).toEqual({ text: '', nextOffset: 5, lossy: false, spillPath: null, bytes: 0, invalidUtf8: false });
    expect(c.truncated).toBe(true);
  });

  it('spill: complete file once past maxBytes; discarded and deleted past spill.maxBytes', () => {
    const dir = tempDir();
    const c = new OutputCollector({ maxBytes: 4, spill: { dir, maxBytes: 12 }, label: 'stdout' });
    c.push(Buffer.from('abc'));
    expect(c.spillPath).toBeNull();
    c.push(Buffer.from('defgh'));
    const path = c.spillPath;
    expect(path).not.toBeNull();
    c.push(Buffer.from('ijkl'));
    expect(readFileSync(path as string, 'utf8')).toBe('abcdefghijkl');
    c.push(Buffer.from('m'));
    expect(c.spillPath).toBeNull();
    expect(existsSync(path as string)).toBe(false);
    c.finish();
    expect(c.read(0)).toMatchObject({ text: 'jklm', spillPath: null, lossy: true });
  });

  it('spill: an unwritable directory is reported, not thrown', () => {
    const dir = join(tempDir(), 'file-not-dir');
    rmSync(dir, { force: true });
    writeFileSync(dir, 'x');
    const c = new OutputCollector({ maxBytes: 1, spill: { dir: join(dir, 'sub'), maxBytes: 100 } });
    c.push(Buffer.from('abc'));
    c.finish();
    expect(c.spillPath).toBeNull();
    expect(c.spillError).toMatch(/ENOTDIR|EEXIST/);
    expect(c.read(0).text).toBe('c');
  });

  it('discardSpill() removes a complete spill file', () => {
    const dir = tempDir();
    const c = new OutputCollector({ maxBytes: 1, spill: { dir, maxBytes: 100 } });
    c.push(Buffer.from('abc'));
    c.finish();
    const path = c.spillPath as string;
    expect(readFileSync(path, 'utf8')).toBe('abc');
    c.discardSpill();
    expect(existsSync(path)).toBe(false);
    expect(c.spillPath).toBeNull();
  });

  it('ignores pushes after finish', () => {
    const c = new OutputCollector({ maxBytes: 10 });
    c.push(Buffer.from('a'));
    c.finish();
    c.push(Buffer.from('b'));
    expect(c.read(0).text).toBe('a');
    expect(c.settled).toBe(true);
  });
});
