/**
 * Syscalls that leave something the host can look at while the probe holds it: an fd of a bpf
 * map, a perf event, a userfaultfd or an io_uring; a namespace of its own (unshare, clone,
 * setns); a mount in it; a tracer. The host looks at the tagged processes in /proc during the
 * probe's `held` pause. Armed where the same command, unconfined on the host, makes the thing.
 */
import type { Host } from '../harness/host.js';
import { fdLinks, mountinfoHas, nsOf, parentOf, tagged, tracerOf } from '../harness/proc.js';
import type { Row } from './types.js';

interface LiveRow {
  id: string;
  title: string;
  proof: string;
  /** The bash (after the live prelude) run on the host to arm and in the fence to attack. */
  bash(host: Host): string;
  /** What the host sees in a tagged process while it holds (null: nothing). */
  look(host: Host, pid: number): string | null;
}

function liveRow(r: LiveRow): Row {
  const hook = (host: Host) => () => {
    for (const pid of tagged(host.tag)) {
      const seen = r.look(host, pid);
      if (seen) host.facts.seen = seen;
    }
  };
  return {
    id: r.id,
    klass: 'syscall',
    title: r.title,
    proof: r.proof,
    marker: 'syscall',
    async arm(host) {
      host.hooks = { held: hook(host) };
      const out = await host.shLive(`${host.live()}${r.bash(host)}`);
      const seen = host.facts.seen;
      delete host.facts.seen;
      return seen ? null : `unconfined on the host it did not work either (${(out.stdout + out.stderr).trim()})`;
    },
    command: (host) => `${host.live()}${r.bash(host)}`,
    judge(host) {
      const seen = host.facts.seen as string | undefined;
      return { failed: seen !== undefined, evidence: seen ?? 'the host saw nothing made while the probe held' };
    },
  };
}

function fdRow(id: string, title: string, kind: string, link: RegExp): Row {
  return liveRow({
    id,
    title,
    proof: `the host sees the fd (${link.source.replace(/\\/g, '')}) in the probe`,
    bash: (host) => host.probe('fd', kind),
    look: (_host, pid) => fdLinks(pid).find((l) => link.test(l)) ?? null,
  });
}

type Ns = 'user' | 'mnt' | 'net';

/** The probe is in a `kind` namespace other than its parent's. */
function ownNs(kind: Ns) {
  return (_host: Host, pid: number): string | null => {
    const parent = parentOf(pid);
    const mine = nsOf(pid, kind);
    const theirs = parent === null ? null : nsOf(parent, kind);
    return mine && theirs && mine !== theirs ? `the probe is in ${mine}, its parent in ${theirs}` : null;
  };
}

/**
 * `$u`: `-Ur` where the user may map itself to root in a new user namespace, else `-U` (uid 0
 * without CAP_SETFCAP may not map 0, but still gets every capability in a namespace it makes).
 */
const USERNS = 'u=$(unshare -Ur true 2>/dev/null && echo -Ur || echo -U); ';

function unshareRow(id: string, flag: '' | 'm' | 'n', kind: Ns): Row {
  return liveRow({
    id,
    title: `unshare -U${flag} (a ${kind} namespace of its own)`,
    proof: `the host sees the probe in a ${kind} namespace other than its parent's`,
    bash: (host) => `${USERNS}unshare "$u"${flag} bash -c '${host.probe('hold')}'`,
    look: ownNs(kind),
  });
}

export const liveSyscallRows: Row[] = [
  liveRow({
    id: 'syscall-ptrace',
    title: 'ptrace (PTRACE_SEIZE of its own child)',
    proof: 'the host sees a tracer on the probe’s child',
    bash: (host) => host.probe('ptrace'),
    look: (host, pid) => {
      const tracer = tracerOf(pid);
      return tracer && tagged(host.tag).includes(tracer) ? `host pid ${pid} is traced by ${tracer}` : null;
    },
  }),
  unshareRow('syscall-unshare-user', '', 'user'),
  unshareRow('syscall-unshare-mount', 'm', 'mnt'),
  unshareRow('syscall-unshare-net', 'n', 'net'),
  liveRow({
    id: 'syscall-clone-newuser',
    title: 'clone with CLONE_NEWUSER (raw syscall)',
    proof: 'the host sees the cloned child in a user namespace other than its parent’s',
    bash: (host) => host.probe('clone-newuser'),
    look: ownNs('user'),
  }),
  liveRow({
    id: 'syscall-mount',
    title: 'mount a tmpfs (in a mount namespace of its own)',
    proof: "the host sees the tmpfs in the probe's mountinfo",
    bash: (host) => `${USERNS}unshare "$u"m bash -c '${host.probe('mount', '/mnt', `${host.tag}-fs`)}'`,
    look: (host, pid) => (mountinfoHas(pid, `${host.tag}-fs`) ? 'the tmpfs is mounted in the probe’s namespace' : null),
  }),
  liveRow({
    id: 'syscall-setns',
    title: 'setns into a namespace it made (nsenter -U -n)',
    proof: "the host sees the joiner in the keeper's network namespace",
    bash: (host) =>
      [
        `${USERNS}unshare "$u"n bash -c 'exec -a ${host.tag}-keeper sleep 60' & k=$!`,
        'for i in $(seq 500); do [ "$(readlink /proc/$k/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break; sleep 0.02; done',
        `nsenter -t $k -U -n --preserve-credentials bash -c '${host.probe('hold')}'`,
        'kill $k',
      ].join('; '),
    look: ownNs('net'),
  }),
  fdRow('syscall-bpf', 'bpf (BPF_MAP_CREATE of an array map)', 'bpf', /^anon_inode:bpf-map$/),
  fdRow(
    'syscall-perf-event-open',
    'perf_event_open (a software clock on itself)',
    'perf',
    /^anon_inode:\[perf_event\]$/,
  ),
  fdRow('syscall-userfaultfd', 'userfaultfd', 'userfaultfd', /^anon_inode:\[userfaultfd\]$/),
  fdRow('syscall-io-uring', 'io_uring_setup', 'io_uring', /^anon_inode:\[io_uring\]$/),
];
