/**
 * What a world can reach (issue 19): with the network on, a namespace of its own; the
 * composition's output read-only (the server writes it); other compositions' output hidden.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BubblewrapSandbox, SandboxPolicyService } from '@dsh/sandbox';

const run = promisify(execFile);

import { afterAll, describe, expect, it } from 'vitest';
import { fenceRig, waitUntil } from './fence-support.js';

const rig = fenceRig('dsh-walls-');
const { root, workspace, host, confined } = rig;
afterAll(() => rig.dispose());

describe('the composition’s output directory', () => {
  it('holds what the server wrote (a spill file), which no command can replace, nor add to', async () => {
    const out = join(root, 'out');
    mkdirSync(join(out, 'spill'), { recursive: true });
    const policy = new SandboxPolicyService({ workspace });
    const sandbox = rig.keep(new BubblewrapSandbox({ outputDirs: [out] }));
    const world = sandbox.world(policy.resolve(), host);
    const spawnIn = (command: string, spill = false) =>
      world.runtime.spawn({
        argv: ['bash', '-c', command],
        cwd: workspace,
        env: {},
        stdin: { kind: 'ignore' },
        stdout: {
          kind: 'collect',
          maxBytes: 64,
          ...(spill ? { spill: { dir: join(out, 'spill'), maxBytes: 1 << 20 } } : {}),
        },
        stderr: { kind: 'collect', maxBytes: 4096 },
        graceMs: 500,
      });
    const first = spawnIn('seq 1 20000', true);
    await first.done;
    const path = first.stdoutReader?.read(0).spillPath;
    expect(path).toMatch(new RegExp(`^${out}/spill/`));
    const forge = spawnIn(`echo forged > ${path}; rm -f ${path}; touch ${out}/spill/planted; cat ${path} | wc -l`);
    await forge.done;
    expect(forge.stdoutReader?.read(0).text.trim()).toBe('20000'); // still readable inside
    expect(readFileSync(path as string, 'utf8').split('\n')[19999]).toBe('20000');
    expect(() => readFileSync(join(out, 'spill', 'planted'))).toThrow();
    expect(forge.stderrReader?.read(0).text).toMatch(/Read-only file system/);
  });
});

describe('other compositions’ output', () => {
  it('is hidden, while this composition’s output and the fence’s own files beside it stay reachable', async () => {
    const outRoot = join(root, 'out-root');
    const mine = join(outRoot, 'run-1-aa');
    mkdirSync(join(mine, 'spill'), { recursive: true });
    mkdirSync(join(outRoot, 'run-2-bb'), { recursive: true });
    writeFileSync(join(outRoot, 'run-2-bb', 'theirs'), 'OTHER-AGENT-OUTPUT');
    writeFileSync(join(mine, 'spill', 'ours'), 'OURS');
    const policy = new SandboxPolicyService({ workspace });
    const sandbox = rig.keep(new BubblewrapSandbox({ outputDirs: [mine], fenceDir: join(outRoot, 'fence') }));
    const h = sandbox.world(policy.resolve(), host).runtime.spawn({
      argv: ['sh', '-c', `ls ${outRoot}; cat ${mine}/spill/ours; cat ${outRoot}/run-2-bb/theirs`],
      cwd: workspace,
      env: {},
      stdin: { kind: 'ignore' },
      stdout: { kind: 'collect', maxBytes: 4096 },
      stderr: { kind: 'collect', maxBytes: 4096 },
      graceMs: 500,
    });
    expect((await h.done).error).toBeNull(); // the world started (its Node.js lives in out-root/fence)
    const out = h.stdoutReader?.read(0).text ?? '';
    expect(out).toMatch(/OURS/);
    expect(out).not.toMatch(/OTHER-AGENT-OUTPUT|run-2-bb/);
  });
});

describe('the network on', () => {
  it('is a namespace of the world’s own: host loopback services, abstract sockets and /run are out of reach', async () => {
    let connections = 0;
    const tcp = createServer((c) => {
      connections += 1;
      c.end('HOST-TCP\n');
    });
    // Node binds abstract names padded to the full address length: python serves the exact name.
    const name = `dsh-walls-${process.pid}`;
    const abstract = spawn('python3', [
      '-c',
      `import socket\ns=socket.socket(socket.AF_UNIX)\ns.bind('\\0${name}')\ns.listen()\nprint('ready',flush=True)\nwhile True:\n  c,_=s.accept(); print('conn',flush=True); c.send(b'HOST-ABSTRACT\\n'); c.close()`,
    ]);
    let abstractOut = '';
    abstract.stdout.on('data', (d: Buffer) => {
      abstractOut += d.toString();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    await waitUntil(() => abstractOut.includes('ready'));
    const port = (tcp.address() as { port: number }).port;
    try {
      // Armed: both answer on the host.
      const probe = (target: string) =>
        `python3 -c "import socket,sys; f=socket.AF_UNIX if '${target}'.startswith('@') else socket.AF_INET; s=socket.socket(f); s.settimeout(2); a='\\0'+'${target}'[1:] if f==socket.AF_UNIX else ('127.0.0.1', int('${target}')); s.connect(a); print(s.recv(64).decode().strip())"`;
      expect((await run('sh', ['-c', probe(String(port))])).stdout).toMatch(/HOST-TCP/);
      expect((await run('sh', ['-c', probe(`@${name}`)])).stdout).toMatch(/HOST-ABSTRACT/);
      connections = 0;
      const r = await confined(
        [
          `[ "$(readlink /proc/self/ns/net)" != "${readlinkSync('/proc/self/ns/net')}" ] && echo OWN-NS`,
          `${probe(String(port))} || echo NO-TCP`,
          `${probe(`@${name}`)} || echo NO-ABSTRACT`,
          'ls -A /run | wc -l',
        ].join('\n'),
        { network: true },
      );
      expect(r.stdout).toMatch(/OWN-NS/);
      expect(r.stdout).toMatch(/NO-TCP/);
      expect(r.stdout).toMatch(/NO-ABSTRACT/);
      expect(r.stdout).not.toMatch(/HOST-/);
      expect(r.stdout.trim().split('\n').at(-1)).toBe('0');
      expect(connections).toBe(0);
      expect(abstractOut.match(/conn/g)).toHaveLength(1); // only the arming probe
    } finally {
      tcp.close();
      abstract.kill('SIGKILL');
    }
  });
});
