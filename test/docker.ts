/**
 * A real Docker engine for the remote-world tests. No registry is reachable here, so the image
 * is made with `docker import` from a small rootfs built from this machine's own files: Node.js,
 * bash, dash as /bin/sh, coreutils, and the shared libraries they load. The daemon is started
 * when none answers (and stopped again by `stop`); the container is removed by `stop`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The image the tests run (rebuilt when missing). */
export const DOCKER_TEST_IMAGE = 'dsh-test-node:2';

export interface DockerWorld {
  container: string;
  /** The channel argv into the container. */
  argv: string[];
  stop(): Promise<void>;
}

function docker(args: string[], input?: Buffer): string {
  return execFileSync('docker', args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'], timeout: 120_000 });
}

function answers(): boolean {
  try {
    docker(['info', '--format', '{{.ServerVersion}}']);
    return true;
  } catch {
    return false;
  }
}

/** Files of the rootfs: programs, the libraries they load, and the loader. */
function rootfsFiles(): string[] {
  // node-pty's addon too: terminals in the container need the libraries it loads.
  const pty = join(
    process.cwd(),
    'node_modules',
    '@lydell',
    `node-pty-${process.platform}-${process.arch}`,
    'pty.node',
  );
  const programs = [process.execPath, '/bin/bash', '/bin/dash', pty];
  const coreutils = execFileSync('dpkg', ['-L', 'coreutils'], { encoding: 'utf8' })
    .split('\n')
    .filter((p) => /^\/(usr\/)?bin\/[^/]+$/.test(p));
  const files = new Set<string>();
  for (const p of [...programs, ...coreutils]) {
    if (!existsSync(p)) continue;
    if (p !== pty) files.add(p);
    const ldd = spawnText('ldd', [p]);
    for (const m of ldd.matchAll(/(\/[^\s)]+)/g)) if (existsSync(m[1] as string)) files.add(m[1] as string);
  }
  return [...files];
}

function spawnText(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

function buildImage(): void {
  const root = mkdtempSync('/tmp/dsh-rootfs-');
  try {
    for (const file of rootfsFiles()) {
      const to = join(root, file);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(file, to);
      execFileSync('chmod', ['--reference', file, to]);
    }
    mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
    // The image's node is on PATH as `node`, and /bin/sh is dash.
    execFileSync('ln', ['-sf', process.execPath, join(root, 'usr/local/bin/node')]);
    execFileSync('ln', ['-sf', 'dash', join(root, 'bin/sh')]);
    for (const dir of ['tmp', 'root', 'etc', 'proc', 'dev', 'sys', 'work'])
      mkdirSync(join(root, dir), { recursive: true });
    execFileSync('chmod', ['1777', join(root, 'tmp')]);
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
    const tar = execFileSync('tar', ['-C', root, '-c', '.'], { maxBuffer: 1 << 30 });
    docker(['import', '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin', '-', DOCKER_TEST_IMAGE], tar);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Starts (or finds) the engine, makes the image when missing, runs a container.
 * @throws Error with the daemon's log when the engine cannot run here.
 */
export async function startDockerWorld(): Promise<DockerWorld> {
  let daemon: ChildProcess | null = null;
  let log = '';
  if (!answers()) {
    daemon = spawn('dockerd', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    daemon.stdout?.on('data', (d) => {
      log += String(d);
    });
    daemon.stderr?.on('data', (d) => {
      log += String(d);
    });
    const deadline = Date.now() + 60_000;
    while (!answers()) {
      if (daemon.exitCode !== null || Date.now() > deadline) {
        throw new Error(`the Docker daemon did not start here: ${log.slice(-2_000)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  if (!docker(['images', '-q', DOCKER_TEST_IMAGE]).trim()) buildImage();
  const container = docker(['run', '-d', '--rm', DOCKER_TEST_IMAGE, 'sleep', 'infinity']).trim();
  return {
    container,
    argv: ['docker', 'exec', '-i', container],
    stop: async () => {
      try {
        docker(['rm', '-f', container]);
      } catch {
        // already gone
      }
      if (daemon && daemon.exitCode === null && daemon.pid && daemon.pid > 1) {
        const gone = new Promise((r) => daemon?.once('exit', r));
        daemon.kill('SIGTERM');
        await gone;
      }
    },
  };
}
