/**
 * A real OpenSSH server on loopback for the remote-world tests: a free port, throwaway host and
 * client keys, keys authorized for root and for a non-root user it creates, nothing written
 * outside its own temp directory but that user. Stopping it kills the daemon (and so every
 * session it forked) and removes the directory.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The non-root user the tests log in as (created when missing). */
export const SSH_TEST_USER = 'dshremote';
const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  port: number;
  dir: string;
  /** The channel argv that logs in as `user` (root by default). */
  argv(user?: string): string[];
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function ensureUser(name: string): void {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--create-home', '--shell', '/bin/bash', name], { stdio: 'inherit' });
  }
  // A new account is locked ('!'), and sshd refuses locked accounts to key logins too: '*' is
  // "no password" without the lock.
  execFileSync('usermod', ['-p', '*', name], { stdio: 'ignore' });
}

/**
 * Starts sshd and waits until it accepts a login.
 * @throws Error when sshd or ssh-keygen is missing or the daemon does not come up.
 */
export async function startSshd(): Promise<Sshd> {
  const dir = mkdtempSync('/tmp/dsh-sshd-');
  chmodSync(dir, 0o755);
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // privilege separation directory
  ensureUser(SSH_TEST_USER);
  const keygen = (path: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path]);
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  const keys = join(dir, 'authorized');
  mkdirSync(keys, { mode: 0o755 });
  const pub = readFileSync(join(dir, 'client_key.pub'), 'utf8');
  for (const user of ['root', SSH_TEST_USER]) writeFileSync(join(keys, user), pub, { mode: 0o644 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${keys}/%u`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const daemon: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  daemon.stderr?.on('data', (d) => {
    said += String(d);
  });
  const argv = (user = 'root') => [
    'ssh',
    '-T',
    '-p',
    String(port),
    '-i',
    join(dir, 'client_key'),
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'BatchMode=yes',
    '-o',
    'LogLevel=ERROR',
    // One master connection per user, shared by every channel: a new channel costs no handshake.
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${join(dir, 'cm-%r')}`,
    '-o',
    'ControlPersist=30', // a master left by a killed run ends on its own soon
    `${user}@127.0.0.1`,
  ];
  const stop = async () => {
    for (const user of ['root', SSH_TEST_USER]) {
      try {
        execFileSync('ssh', ['-o', `ControlPath=${join(dir, 'cm-%r')}`, '-O', 'exit', `${user}@127.0.0.1`], {
          stdio: 'ignore',
          timeout: 5_000,
        });
      } catch {
        // no master for this user
      }
    }
    if (daemon.exitCode === null && daemon.pid && daemon.pid > 1) {
      const gone = new Promise((r) => daemon.once('exit', r));
      daemon.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (daemon.exitCode !== null) {
      await stop();
      throw new Error(`sshd exited at start: ${said}`);
    }
    try {
      execFileSync('ssh', [...argv().slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 });
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`sshd did not accept a login within 20 s: ${said}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { port, dir, argv, stop };
}
