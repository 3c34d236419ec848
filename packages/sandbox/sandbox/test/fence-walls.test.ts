/**
 * The walls of a world (issue 19), each decided from host-side evidence: kernel knobs, hidden
 * paths, the world's machinery and its cgroup, protected files in the workspace, per-world
 * limits. Runs real bubblewrap worlds; a missing bubblewrap is a failure, not a skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { protectedPaths } from '@dsh/sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { fenceRig } from './fence-support.js';

const rig = fenceRig('dsh-walls-');
const { root, confined } = rig;
afterAll(() => rig.dispose());

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

  it('a denyRead path inside the workspace stays hidden under the workspace’s writable bind', async () => {
    const { workspace } = rig;
    mkdirSync(join(workspace, 'vault'));
    writeFileSync(join(workspace, 'vault', 'key'), 'SECRET-IN-DIR');
    writeFileSync(join(workspace, '.env'), 'SECRET-ENV');
    writeFileSync(join(workspace, 'notes'), 'NOTES');
    const r = await confined(`cat vault/key; cat .env; cat notes; echo new > fresh && cat fresh`, {
      denyRead: [join(workspace, 'vault'), join(workspace, '.env')],
    });
    expect(r.stdout).toBe('NOTESnew\n');
    expect(r.stdout + r.stderr).not.toMatch(/SECRET/);
    expect(r.stderr).toMatch(/vault\/key: Permission denied/);
    expect(r.stderr).toMatch(/\.env: Permission denied/);
  });

  it('a hidden path inside the workspace cannot be moved out from under its mask, nor its mask opened', async () => {
    const { workspace } = rig;
    mkdirSync(join(workspace, 'cfg', 'deep'), { recursive: true });
    writeFileSync(join(workspace, 'cfg', 'deep', 'secret'), 'SECRET-DEEP');
    mkdirSync(join(workspace, 'keys'));
    writeFileSync(join(workspace, 'keys', 'k'), 'SECRET-KEYS');
    const r = await confined(
      'mv cfg cfg2; mv cfg/deep cfg/moved; chmod 700 keys; echo x > keys/new; cat cfg/deep/secret',
      {
        denyRead: [join(workspace, 'cfg', 'deep', 'secret'), join(workspace, 'keys')],
      },
    );
    expect(r.stdout + r.stderr).not.toMatch(/SECRET/);
    expect(r.stderr).toMatch(/mv: cannot move 'cfg' to 'cfg2': Device or resource busy/);
    expect(r.stderr).toMatch(/mv: cannot move 'cfg\/deep' to 'cfg\/moved': Device or resource busy/);
    expect(r.stderr).toMatch(/chmod: changing permissions of 'keys': Read-only file system/);
    // On the host nothing moved.
    expect(readFileSync(join(workspace, 'cfg', 'deep', 'secret'), 'utf8')).toBe('SECRET-DEEP');
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
        // Signal routing through a descriptor's owner reaches the server around the pid checks.
        `python3 -c "import fcntl,os; r,w=os.pipe(); fcntl.fcntl(r, fcntl.F_SETOWN, 2)" 2>/dev/null || echo NOSETOWN`,
      ].join('\n'),
    );
    expect(r.stdout).not.toMatch(/ENVIRON|FD|REACH/);
    expect(r.stdout).toMatch(/ABOVE-MACHINERY/);
    expect(r.stdout).toMatch(/NOSTOP/);
    expect(r.stdout).toMatch(/NOUNSHARE/);
    expect(r.stdout).toMatch(/NOSETOWN/);
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
      `[ -z "$(ls -A /proc/1/fd)" ] && echo FDMASKED; python3 -c "open('/proc/1/mem','rb')" 2>/dev/null && echo MEMOPEN; for f in /proc/self/fd/*; do n=\${f##*/}; [ "$n" -gt 2 ] && readlink "$f"; done; true`,
    );
    // Inside, the init's descriptors and memory are masked (it is dumpable); the host sees them.
    expect(r.stdout).not.toMatch(/MEMOPEN/);
    expect(r.stdout).toMatch(/FDMASKED/);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('socket:'))).toEqual([]);
    const inits = worldInits(process.pid);
    expect(inits.length).toBeGreaterThan(0);
    for (const pid of inits) {
      const links = fdLinksOf(pid);
      expect(links.slice(0, 2)).toEqual(['/dev/null', '/dev/null']);
      // fd 2 is the world's stderr (diagnostics, not the channel); past it only bwrap's eventfd.
      expect(
        links.slice(3).filter((l) => /^(socket|pipe):/.test(l)),
        JSON.stringify(links),
      ).toEqual([]);
    }
  });
});

/** Host pids of the worlds' inits (pid 1 of a pid namespace) below `root`. */
function worldInits(root: number): number[] {
  const parentOf = new Map<number, number>();
  const inits: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      parentOf.set(Number(name), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]));
      if (/^NSpid:\s+\d+\s+1$/m.test(status)) inits.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let at = parentOf.get(pid); at !== undefined && at > 1; at = parentOf.get(at)) if (at === root) return true;
    return false;
  };
  return inits.filter(below);
}

/** The targets of `pid`'s descriptors, in descriptor order. */
function fdLinksOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`)
    .map(Number)
    .sort((a, b) => a - b)
    .map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
}

describe('IPC', () => {
  it('the host’s SysV shared memory is not the world’s (its own IPC namespace)', async () => {
    const made = execFileSync('ipcmk', ['-M', '4096']).toString(); // "Shared memory id: N"
    const id = /(\d+)/.exec(made)?.[1] as string;
    try {
      expect(execFileSync('ipcs', ['-m']).toString()).toContain(` ${id} `); // armed: the host lists it
      const r = await confined('readlink /proc/self/ns/ipc; ipcs -m');
      expect(r.stdout.split('\n')[0]).not.toBe(readlinkSync('/proc/self/ns/ipc'));
      expect(r.stdout).not.toContain(` ${id} `);
    } finally {
      execFileSync('ipcrm', ['-m', id]);
    }
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

  it('a link planted where a pinned or protected path is leads nowhere out of the workspace', async () => {
    const ws = join(root, 'linked-ws');
    const outside = join(root, 'outside-dir');
    const hidden = join(root, 'hidden-file');
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(hidden, 'SECRET-BEHIND-LINK');
    mkdirSync(join(ws, 'vault'));
    // One world plants relative links (bubblewrap resolves a bind's source on the host and its
    // target in the new root: both land on the link's target)...
    const plant = await confined(
      `cd ${ws} && ln -s ${relative(ws, outside)} .git && ln -s ${relative(ws, hidden)} .envrc && rmdir vault && ln -s ${relative(ws, outside)} vault && echo PLANTED`,
      { workspace: ws },
    );
    expect(plant.stdout).toBe('PLANTED\n');
    // ...the next world must not bind where they point: the outside directory stays read-only,
    // the hidden file hidden (armed: the host can write and read both).
    const r = await confined(`cd ${ws}; echo pwned > ${outside}/via-git; cat .envrc; cat ${hidden}; echo done`, {
      workspace: ws,
      denyRead: [hidden, join(ws, 'vault', 'key')],
    });
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toMatch(/via-git: Read-only file system/);
    expect(existsSync(join(outside, 'via-git'))).toBe(false);
    expect(r.stdout + r.stderr).not.toMatch(/SECRET/);
  });

  it('a .git file a command wrote names no directory to bind writable', async () => {
    const ws = join(root, 'forged-ws');
    const outside = join(root, 'forged-target');
    mkdirSync(join(outside, 'worktrees', 'x'), { recursive: true });
    mkdirSync(ws);
    // Shaped like a linked worktree's (an `objects` store, `worktrees/x`), with no back-link to it.
    mkdirSync(join(outside, 'objects'));
    const plant = await confined(`cd ${ws} && printf 'gitdir: ${outside}/worktrees/x\n' > .git && echo PLANTED`, {
      workspace: ws,
    });
    expect(plant.stdout).toBe('PLANTED\n');
    expect(protectedPaths([ws]).writable).not.toContain(outside);
    const r = await confined(`cd ${ws}; echo pwned > ${outside}/f; echo done`, { workspace: ws });
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, 'f'))).toBe(false);
  });

  it('a commondir a command makes in a repository is removed as it appears: the person’s git never reads it', async () => {
    const repo = join(root, 'commondir-repo');
    execFileSync('git', ['init', '-q', repo]);
    const ran = join(root, 'fsmonitor-ran');
    const evil = `[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = "touch ${ran}; false"\\n`;
    const gone = 'for i in $(seq 100); do [ -e .git/commondir ] || { echo GONE; break; }; sleep 0.05; done';
    const r = await confined(
      [
        `cd ${repo}`,
        `mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf '${evil}' > evil/config`,
        `echo ${repo}/evil > .git/commondir && ${gone}`,
        `echo ${repo}/evil > x && mv x .git/commondir && ${gone}`,
      ].join('\n'),
      { workspace: repo },
    );
    expect(r.stdout).toBe('GONE\nGONE\n');
    execFileSync('git', ['-C', repo, 'status'], { stdio: 'ignore' });
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false);
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
