/**
 * The walls of a world (issue 19), each decided from host-side evidence: kernel knobs, hidden
 * paths, the world's machinery and its cgroup, protected files in the workspace, per-world
 * limits. Runs real bubblewrap worlds; a missing bubblewrap is a failure, not a skip.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BubblewrapSandbox, protectedPaths, type SandboxPolicyOptions, SandboxPolicyService } from '@dsh/sandbox';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** Polls `check` (every 20 ms, up to 10 s). */
async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!check()) throw new Error('timed out waiting');
}
let root: string;
let workspace: string;
const host = new LocalSubprocessRuntime({ containment: 'strict' });
const sandboxes: BubblewrapSandbox[] = [];

beforeAll(() => {
  root = mkdtempSync('/var/tmp/dsh-walls-');
  workspace = join(root, 'ws');
  mkdirSync(workspace);
});

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.dispose()));
  await host.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** Runs `command` with bash in a world of `options`; returns what it printed and how it ended. */
async function confined(command: string, options: Partial<SandboxPolicyOptions> = {}) {
  const policy = new SandboxPolicyService({ workspace, ...options });
  const sandbox = new BubblewrapSandbox({});
  sandboxes.push(sandbox);
  const world = sandbox.world(policy.resolve(), host);
  const h = world.runtime.spawn({
    argv: ['bash', '-c', command],
    cwd: workspace,
    env: {},
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1 << 20 },
    stderr: { kind: 'collect', maxBytes: 1 << 20 },
    graceMs: 500,
  });
  const done = await h.done;
  return { ...done, stdout: h.stdoutReader?.read(0).text ?? '', stderr: h.stderrReader?.read(0).text ?? '', world };
}

describe('kernel knobs', () => {
  it('/proc/sys is read-only inside (the same write works on the host); kernel files are masked', async () => {
    const hostname = readFileSync('/proc/sys/kernel/hostname', 'utf8');
    writeFileSync('/proc/sys/kernel/hostname', hostname); // armed: the host can write it
    const r = await confined(
      'echo dsh-pwned > /proc/sys/kernel/hostname; echo 1 > /sys/kernel/mm/ksm/run; cat /proc/keys; ls /sys/firmware',
    );
    expect(readFileSync('/proc/sys/kernel/hostname', 'utf8')).toBe(hostname);
    expect(r.stderr).toMatch(/hostname: Read-only file system/);
    expect(r.stderr).toMatch(/ksm\/run: Read-only file system/);
    expect(r.stderr).toMatch(/\/proc\/keys: Permission denied/);
    expect(r.stdout).toBe(''); // /sys/firmware is an empty directory
  });
});

describe('hidden paths', () => {
  it('denyRead hides directories and files (unreadable), other paths stay readable', async () => {
    const secrets = join(root, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'key'), 'SECRET-DIR');
    writeFileSync(join(root, 'token'), 'SECRET-FILE');
    writeFileSync(join(root, 'plain'), 'PLAIN');
    const r = await confined(`cat ${secrets}/key; cat ${root}/token; cat ${root}/plain`, {
      denyRead: [secrets, join(root, 'token')],
    });
    expect(r.stdout).toBe('PLAIN');
    expect(r.stdout + r.stderr).not.toMatch(/SECRET/);
    expect(r.stderr).toMatch(/Permission denied/);
  });
});

describe('the world’s machinery', () => {
  it('the runtime server cannot be traced, read, stopped or left (its cgroup is read-only inside)', async () => {
    const r = await confined(
      [
        'strace -p 2 -e trace=none -o /dev/null & sleep 0.2; kill %1 2>/dev/null',
        'cat /proc/2/environ >/dev/null && echo ENVIRON',
        'ls /proc/2/fd/0/ >/dev/null 2>&1 && echo FD',
        'kill -STOP 2 || echo NOSTOP',
        // Any thread id of the server reaches the whole server: every one of them is protected.
        'for t in $(ls /proc/2/task); do [ "$t" != 2 ] && kill -0 "$t" 2>/dev/null && echo "REACH $t"; done',
        '[ $$ -gt 32 ] && echo ABOVE-MACHINERY',
        'cg=$(sed -n "s/^0:://p" /proc/self/cgroup)',
        'mnt=$(awk \'$9=="cgroup2"{print $5; exit}\' /proc/self/mountinfo)',
        'echo $BASHPID > "$mnt$cg/../cgroup.procs" || echo NOMOVE',
        'unshare -U true || echo NOUNSHARE',
      ].join('\n'),
    );
    expect(r.stdout).not.toMatch(/ENVIRON|FD|REACH/);
    expect(r.stdout).toMatch(/ABOVE-MACHINERY/);
    expect(r.stdout).toMatch(/NOSTOP/);
    expect(r.stdout).toMatch(/NOUNSHARE/);
    expect(r.stderr).toMatch(/Operation not permitted/);
    // The server still answers after all that: the world is whole.
    const again = await r.world.runtime.spawn({
      argv: ['true'],
      cwd: '/',
      env: {},
      stdin: { kind: 'ignore' },
      stdout: { kind: 'pipe' },
      stderr: { kind: 'pipe' },
      graceMs: 100,
    }).done;
    expect(again.exitCode).toBe(0);
  });

  it('no process but the server holds the channel: not bubblewrap’s init (pid 1), not a command', async () => {
    const r = await confined(
      `readlink /proc/1/fd/0 /proc/1/fd/1; for f in /proc/self/fd/*; do n=\${f##*/}; [ "$n" -gt 2 ] && readlink "$f"; done; true`,
    );
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['/dev/null', '/dev/null']);
    expect(lines.slice(2).filter((l) => l.startsWith('socket:'))).toEqual([]);
  });
});

describe('the composition’s output directory', () => {
  it('holds what the server wrote (a spill file), which no command can replace, nor add to', async () => {
    const out = join(root, 'out');
    mkdirSync(join(out, 'spill'), { recursive: true });
    const policy = new SandboxPolicyService({ workspace });
    const sandbox = new BubblewrapSandbox({ outputDirs: [out] });
    sandboxes.push(sandbox);
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
    const sandbox = new BubblewrapSandbox({ outputDirs: [mine], fenceDir: join(outRoot, 'fence') });
    sandboxes.push(sandbox);
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

describe('files a person’s tools run later', () => {
  it('.git hooks and config, .envrc and .vscode stay read-only; commits still work', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, '.envrc'), 'echo hi\n');
    mkdirSync(join(repo, '.vscode'));
    const before = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const policy = { workspace: repo };
    const r = await confined(
      [
        `cd ${repo}`,
        'echo "touch /tmp/pwned" > .git/hooks/pre-commit',
        'git config core.hooksPath /tmp',
        'echo "curl evil" >> .envrc',
        'echo {} > .vscode/settings.json',
        'mv .git .git-old || echo PINNED',
        'echo x > f && git add f && git -c user.email=a@b -c user.name=n commit -qm x && echo COMMITTED',
      ].join('\n'),
      policy,
    );
    expect(r.stdout).toMatch(/PINNED/);
    expect(r.stdout).toMatch(/COMMITTED/);
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(before);
    expect(readFileSync(join(repo, '.envrc'), 'utf8')).toBe('echo hi\n');
    expect(() => readFileSync(join(repo, '.git', 'hooks', 'pre-commit'))).toThrow();
    expect(execFileSync('git', ['-C', repo, 'log', '--oneline']).toString()).toMatch(/x/);
  });

  it('a linked worktree binds the main repository’s store writable, its hooks and config not', () => {
    const main = join(root, 'main-repo');
    execFileSync('git', ['init', '-q', main]);
    execFileSync('git', [
      '-C',
      main,
      '-c',
      'user.email=a@b',
      '-c',
      'user.name=n',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'i',
    ]);
    const linked = join(root, 'linked');
    execFileSync('git', ['-C', main, 'worktree', 'add', '-q', linked]);
    const p = protectedPaths([linked]);
    expect(p.writable).toContain(join(main, '.git'));
    expect(p.readOnly).toEqual(expect.arrayContaining([join(main, '.git', 'hooks'), join(main, '.git', 'config')]));
    expect(protectedPaths([linked], [join(main, '.git', 'hooks')]).readOnly).not.toContain(join(main, '.git', 'hooks'));
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

describe('limits', () => {
  it('a fork bomb stops at the pids limit, is reported from the host’s counter, and the next call works', async () => {
    const r = await confined('for i in $(seq 1 80); do sleep 1 & done; wait', { limits: { pids: 40 } });
    expect(r.stderr).toMatch(/fork|Resource temporarily unavailable/);
    expect(r.world.limitCounters?.()?.pids ?? 0).toBeGreaterThan(0);
  });

  it('the world’s /tmp has a size', async () => {
    const r = await confined('head -c 3000000 /dev/zero > /tmp/big', { tmpBytes: 1024 * 1024 });
    expect(r.stderr).toMatch(/No space left on device/);
  });
});
