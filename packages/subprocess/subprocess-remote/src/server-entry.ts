/**
 * The runtime server as a program: `node server-entry.js [--containment auto|session]
 * [--probe-sandbox] [--cgroup-fd N] [--channel-fds IN,OUT] [--machinery-pids N] [--writable-fd N=PATH]… [--net-forward PORT=PATH]` (or the single-file `runtime-server.mjs`). Exits 0 once its
 * channel ended and every tree is gone. `--probe-sandbox` adds whether bubblewrap works here to
 * `hello`. `--cgroup-fd N`: descriptor N is the writable cgroup directory this server lives in,
 * whose path is read-only here (a sandbox world: its commands cannot move themselves out).
 */
import { closeSync, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setWritableAlias } from '@dsh/subprocess';
import { shadowInheritedFds, useCgroupDescriptor } from '@dsh/subprocess-local';
import { hostFacts } from './host-facts.js';
import { reserveMachineryPids } from './machinery-pids.js';
import { forwardToProxy, parseForward, proxyEnv } from './net-forward.js';
import { serveRuntimeStdio } from './serve-stdio.js';

/**
 * What sshd sets for the session the server runs in, never its commands' business: with
 * `SSH_CLIENT` set, Debian's bash reads `~/.bashrc` even for `bash -c` (tens of ms and the rc's
 * output in every result), and tools take the commands for an interactive ssh login.
 */
const SSH_SESSION_VARIABLES: readonly string[] = ['SSH_CLIENT', 'SSH2_CLIENT', 'SSH_CONNECTION', 'SSH_TTY'];
for (const name of SSH_SESSION_VARIABLES) delete process.env[name];

const fdAt = process.argv.indexOf('--cgroup-fd');
if (fdAt >= 0) useCgroupDescriptor(Number(process.argv[fdAt + 1]));

/**
 * `--channel-fds IN,OUT`: the channel is on these descriptors (a sandbox world puts it there, so
 * bubblewrap's init, which closes every descriptor past stdio, holds none of it); no child
 * inherits them.
 */
function channelOf(): { input: Socket; output: Socket } | undefined {
  const at = process.argv.indexOf('--channel-fds');
  if (at < 0) return undefined;
  const [input, output] = String(process.argv[at + 1])
    .split(',')
    .map(Number);
  if (!Number.isInteger(input) || !Number.isInteger(output)) return undefined;
  shadowInheritedFds([input as number, output as number]);
  return {
    input: new Socket({ fd: input as number, readable: true, writable: false }),
    output: new Socket({ fd: output as number, readable: false, writable: true }),
  };
}
const channel = channelOf();

/**
 * `--writable-fd N=PATH` (repeatable): descriptor N is directory PATH opened where it is
 * writable; PATH is read-only here (a sandbox world's output directories), so spill files are
 * written through the descriptor, which no command can reach.
 */
for (let at = process.argv.indexOf('--writable-fd'); at >= 0; at = process.argv.indexOf('--writable-fd', at + 1)) {
  const arg = String(process.argv[at + 1]);
  const eq = arg.indexOf('=');
  const fd = Number(arg.slice(0, eq));
  try {
    const own = openSync(`/proc/self/fd/${fd}`, 'r'); // close-on-exec, unlike the inherited one
    closeSync(fd);
    setWritableAlias(arg.slice(eq + 1), `/proc/self/fd/${own}`);
  } catch {
    // not open: writes there fail as read-only, and the collector says a copy could not be kept
  }
}

/** `--machinery-pids N`: pids 1…N are the machinery's alone (a sandbox world's seccomp program protects them). */
const pidsAt = process.argv.indexOf('--machinery-pids');
if (pidsAt >= 0) {
  const max = Number(process.argv[pidsAt + 1]);
  const top = Number.isInteger(max) && max > 0 ? await reserveMachineryPids(max) : null;
  if (top === null || top > max) {
    process.stderr.write(
      `dsh runtime server: pids 1-${max} could not all be kept for the machinery (top thread ${top})\n`,
    );
  }
}

/**
 * `--net-forward PORT=PATH`: the world's proxy is the unix socket PATH; the server listens on
 * 127.0.0.1:PORT for it, and every command gets the proxy variables (net-forward.ts).
 */
let forcedEnv: Record<string, string> = {};
const netAt = process.argv.indexOf('--net-forward');
if (netAt >= 0) {
  const forward = parseForward(String(process.argv[netAt + 1]));
  try {
    if (!forward) throw new Error(`--net-forward needs PORT=PATH, not ${process.argv[netAt + 1]}`);
    await forwardToProxy(forward.port, forward.path);
    forcedEnv = proxyEnv(forward.port);
  } catch (error) {
    process.stderr.write(`dsh runtime server: the world's proxy could not be reached: ${String(error)}\n`);
    process.exit(1);
  }
}

const at = process.argv.indexOf('--containment');
const containment = at >= 0 && process.argv[at + 1] === 'session' ? 'session' : 'auto';
const info = hostFacts(fileURLToPath(import.meta.url), process.argv.includes('--probe-sandbox'));
serveRuntimeStdio({ containment, info, forcedEnv, ...(channel ? { channel } : {}) }).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`dsh runtime server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
