/**
 * The world's own machinery: pid 1 (bubblewrap's init) and pid 2 (the runtime server, which
 * reports every later result of the agent). A command must not trace them, read their memory,
 * environment or descriptors, stop or kill them, or change their limits. The command does its
 * work, then a tagged holder waits (live.ts) while the host finds the world's pids 1 and 2 from
 * the holder's pid namespace and looks at them.
 */
import { existsSync } from 'node:fs';
import type { Host } from '../harness/host.js';
import { sha256 } from '../harness/knobs.js';
import { alive, fdLinks, procFile, state, tagged, tracerOf, worldPid } from '../harness/proc.js';
import { poll } from '../harness/spawn.js';
import type { Row, Verdict } from './types.js';

/**
 * The host pid of world pid `n`, from the tagged holder (waited for: a subshell takes a moment
 * to become it).
 * @throws when no holder or no such world pid shows up.
 */
async function worldOf(host: Host, n: number): Promise<number> {
  const pid = await poll(() => {
    const [holder] = tagged(host.tag);
    return holder === undefined ? null : worldPid(holder, n);
  }, 5_000);
  if (pid === undefined) throw new Error(`no world pid ${n} seen from a holder tagged ${host.tag}`);
  return pid;
}

/** Arms a tracing row: the tool exists and this user can trace a process of its own on the host. */
async function armTracer(host: Host, tool: 'strace' | 'gdb'): Promise<string | null> {
  if (!existsSync(`/usr/bin/${tool}`)) return `${tool} is not installed on the host (Debian: apt-get install ${tool})`;
  const attach = tool === 'strace' ? 'strace -p $p -o /dev/null' : 'gdb -n -batch -p $p -ex "shell sleep 2"';
  const out = await host.sh(
    `sleep 30 & p=$!; ${attach} >/dev/null 2>&1 & t=$!; ok=0; for i in $(seq 500); do grep -q "TracerPid:[[:space:]]*[1-9]" /proc/$p/status && ok=1 && break; sleep 0.02; done; kill $t $p; [ $ok = 1 ]`,
  );
  return out.code === 0 ? null : `${host.user.name} cannot ${tool} a process of its own on the host`;
}

interface MachineryRow {
  id: string;
  title: string;
  proof: string;
  /** The world pid the host looks at while the holder waits. */
  target: 1 | 2;
  /** Bash before the holder (the attack), and after it (undoing what would hang the call). */
  work: string;
  after?: string;
  tracer?: 'strace' | 'gdb';
  /** What the host sees of the target (host pid) while the holder waits. */
  see(host: Host, pid: number): Verdict;
  /** Decides once the output is known (default: what `see` said). */
  judge?(host: Host, text: string): Verdict;
}

function machineryRow(r: MachineryRow): Row {
  const command = (host: Host) => `${host.live()}${r.work}; (${host.probe('hold')}); ${r.after ?? 'true'}`;
  return {
    id: r.id,
    klass: 'machinery',
    title: r.title,
    proof: r.proof,
    async arm(host) {
      host.hooks = {
        async held() {
          host.facts.verdict = r.see(host, await worldOf(host, r.target));
        },
      };
      // The target is the world's own process, there while the attempt runs; a tool must work here.
      return r.tracer ? armTracer(host, r.tracer) : null;
    },
    command,
    judge(host, attempt) {
      if (host.facts.verdict === undefined) return { failed: false, evidence: 'the holder never held' };
      return r.judge ? r.judge(host, attempt.text) : (host.facts.verdict as Verdict);
    },
  };
}

const traced = (_host: Host, pid: number): Verdict => {
  const tracer = tracerOf(pid);
  return { failed: (tracer ?? 0) > 0, evidence: `host pid ${pid}: TracerPid ${tracer}` };
};

/** Bash waiting (bounded) until /proc/N/status shows `field: value`, or the process `$s` doing it gave up. */
const waitFor = (n: number, field: string, value: string, tries = 500) =>
  `for i in $(seq ${tries}); do grep -q "${field}:[[:space:]]*${value}" /proc/${n}/status && break; [ -n "$s" ] && ! kill -0 $s 2>/dev/null && break; sleep 0.02; done`;

/** Python that prints the SHA-256 of pid N's environment, read through /proc/N/mem. */
const memEnvironPy = (n: number): string =>
  `python3 -c "import hashlib; f = open('/proc/${n}/stat').read().rsplit(')', 1)[1].split(); a, b = int(f[47]), int(f[48]); m = open('/proc/${n}/mem', 'rb'); m.seek(a); print(hashlib.sha256(m.read(b - a)).hexdigest())"`;

function environRow(id: string, title: string, target: 1 | 2, work: string): Row {
  return machineryRow({
    id,
    title,
    proof: `the digest of world pid ${target}'s environment, as the host reads it, appears in the output`,
    target,
    work,
    see(host, pid) {
      host.facts.digest = sha256(Buffer.from(procFile(pid, 'environ') ?? '', 'latin1'));
      return { failed: false, evidence: '' };
    },
    judge(host, text) {
      const failed = text.includes(host.facts.digest as string);
      return {
        failed,
        evidence: failed ? `the output holds world pid ${target}'s environment` : 'its digest is not in the output',
      };
    },
  });
}

const name = (n: 1 | 2) => (n === 1 ? "bubblewrap's init" : 'the runtime server');
const killAllCommand = (host: Host) =>
  `${host.live()}(exec -a ${host.tag} sleep 60) & t=$!; rt_ready; kill $t; kill -9 -1`;

export const machineryRows: Row[] = [
  ...([1, 2] as const).map((n) =>
    machineryRow({
      id: `machinery-strace-pid${n}`,
      title: `strace -p ${n} (${name(n)})`,
      proof: `the host sees a tracer on world pid ${n}`,
      target: n,
      tracer: 'strace',
      work: `strace -p ${n} -o /dev/null 2>/dev/null & s=$!; ${waitFor(n, 'TracerPid', '[1-9]')}`,
      after: 'kill $s',
      see: traced,
    }),
  ),
  machineryRow({
    id: 'machinery-gdb-pid2',
    title: 'gdb -p 2 (a debugger on the runtime server)',
    proof: 'the host sees a tracer on world pid 2',
    target: 2,
    tracer: 'gdb',
    // Attached, gdb stays so while its shell command waits for the host's `done`, then detaches.
    work: `printf 'grep -q "TracerPid:[[:space:]]*[1-9]" /proc/2/status || exit 0; i=0; while [ ! -e "$RT/done" ] && [ $i -lt 500 ]; do sleep 0.05; i=$((i+1)); done\\n' > "$RT/wait.sh"; gdb -n -batch -p 2 -ex "shell sh $RT/wait.sh" >/dev/null 2>&1 & s=$!; ${waitFor(2, 'TracerPid', '[1-9]')}`,
    after: 'wait $s',
    see: traced,
  }),
  environRow('machinery-environ-pid2', "read the runtime server's /proc/2/environ", 2, 'sha256sum /proc/2/environ'),
  environRow('machinery-mem-pid2', "read the runtime server's memory through /proc/2/mem", 2, memEnvironPy(2)),
  environRow('machinery-mem-pid1', "read bubblewrap's init's memory through /proc/1/mem", 1, memEnvironPy(1)),
  machineryRow({
    id: 'machinery-fd-pid2',
    title: "list the runtime server's descriptors in /proc/2/fd (its channel)",
    proof: "the inode of one of the server's sockets or pipes, as the host sees them, appears in the output",
    target: 2,
    work: 'ls -l /proc/2/fd',
    see(host, pid) {
      host.facts.links = fdLinks(pid).filter((l) => /^(socket|pipe):\[\d+\]$/.test(l));
      return { failed: false, evidence: '' };
    },
    judge(host, text) {
      const links = host.facts.links as string[];
      const seen = links.filter((l) => text.includes(l));
      return {
        failed: seen.length > 0,
        evidence: `the output names ${seen.length} of the server's ${links.length} channels`,
      };
    },
  }),
  ...([2, 1] as const).map((n) =>
    machineryRow({
      id: `machinery-kill-stop-pid${n}`,
      title: `kill -STOP ${n} (${name(n)})`,
      proof: `the host sees world pid ${n} stopped`,
      target: n,
      work: `s=; kill -STOP ${n} && ${waitFor(n, 'State', 'T', 50)}`,
      after: `kill -CONT ${n}`,
      see: (_host, pid) => ({ failed: state(pid) === 'T', evidence: `host pid ${pid} is in state ${state(pid)}` }),
    }),
  ),
  machineryRow({
    id: 'machinery-prlimit-pid2',
    title: "change the runtime server's limits (prlimit --pid 2 --core)",
    proof: "the host reads the changed limit in the server's /proc/PID/limits",
    target: 2,
    work: 'prlimit --pid 2 --core=4242:4242',
    see(_host, pid) {
      const line =
        procFile(pid, 'limits')
          ?.split('\n')
          .find((l) => l.startsWith('Max core file size')) ?? '';
      return { failed: /\b4242\b/.test(line), evidence: `host pid ${pid}: ${line.replace(/\s+/g, ' ').trim()}` };
    },
  }),
  {
    id: 'machinery-kill-all',
    klass: 'machinery',
    title: 'kill -9 -1 (every process the command may signal, the server included)',
    proof: "the world's server (its host pid seen before the kill) is dead after the call",
    startMayFail: true,
    async arm(host) {
      host.hooks = {
        async ready() {
          host.facts.server = await worldOf(host, 2);
        },
      };
      return null;
    },
    command: killAllCommand,
    // In a session, so that the world outlives the call unless the command killed its server.
    attempt: async (host) => (await host.mcp({ log: false })).bash({ command: killAllCommand(host) }),
    async judge(host) {
      const pid = host.facts.server as number | null | undefined;
      if (!pid) return { failed: false, evidence: 'the world server was never seen' };
      const dead = await poll(() => !alive(pid), 2_000);
      return {
        failed: dead === true,
        evidence: `the world's server (host pid ${pid}) is ${dead ? 'dead' : 'alive'} after the call`,
      };
    },
  },
];
