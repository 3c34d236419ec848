import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runtime, spec } from './helpers.js';

describe('stdin dispositions', () => {
  it("'bytes' writes the data then closes stdin", async () => {
    const h = runtime().spawn(spec(['cat'], { stdin: { kind: 'bytes', data: 'héllo\nworld' } }));
    expect((await h.done).exitCode).toBe(0);
    expect(h.stdoutReader?.read(0).text).toBe('héllo\nworld');
    const b = runtime().spawn(spec(['cat'], { stdin: { kind: 'bytes', data: new Uint8Array([0x61, 0x62]) } }));
    await b.done;
    expect(b.stdoutReader?.read(0).text).toBe('ab');
  });

  it("'ignore' gives EOF at once", async () => {
    const h = runtime().spawn(spec(['sh', '-c', 'read x; echo "got:$x:$?"']));
    await h.done;
    expect(h.stdoutReader?.read(0).text).toBe('got::1\n');
  });

  it("'pipe' exposes a raw stdin and raw stdout for protocol back ends", async () => {
    const h = runtime().spawn(spec(['cat'], { stdin: { kind: 'pipe' }, stdout: { kind: 'pipe' } }));
    expect(h.stdoutReader).toBeNull();
    const stdout = h.stdout;
    if (!h.stdin || !stdout) throw new Error('pipes missing');
    const chunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => chunks.push(c));
    h.stdin.write('{"jsonrpc":"2.0","id":1}\n');
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (Buffer.concat(chunks).toString().includes('"id":1')) resolve();
        else stdout.once('data', check);
      };
      check();
    });
    h.stdin.end();
    await once(stdout, 'end');
    expect(Buffer.concat(chunks).toString()).toBe('{"jsonrpc":"2.0","id":1}\n');
    expect((await h.done).exitCode).toBe(0);
  });

  it('a writer into a child that exited does not crash the host (EPIPE is contained)', async () => {
    const h = runtime().spawn(spec(['true'], { stdin: { kind: 'pipe' } }));
    await h.done;
    h.stdin?.write('x'.repeat(1 << 20));
    h.stdin?.end();
    await new Promise((r) => setTimeout(r, 50));
  });

  it('gives pipe consumers ended stand-in streams when the program never started', async () => {
    const h = runtime().spawn(
      spec(['dsh-no-such-program-xyz'], {
        stdin: { kind: 'pipe' },
        stdout: { kind: 'pipe' },
        stderr: { kind: 'pipe' },
      }),
    );
    await h.done;
    const stdout = h.stdout;
    if (!stdout || !h.stdin) throw new Error('stand-ins missing');
    h.stdin.write('ignored');
    stdout.resume();
    await once(stdout, 'end');
  });
});

describe("'inherit'", () => {
  it("passes the parent's own descriptors through", () => {
    const fixture = fileURLToPath(new URL('./fixtures/inherit.mjs', import.meta.url));
    const out = execFileSync(process.execPath, [fixture], { encoding: 'utf8' });
    expect(out).toBe('to-parent-stdout\n{"stdout":null,"reader":null}\n');
  });
});
