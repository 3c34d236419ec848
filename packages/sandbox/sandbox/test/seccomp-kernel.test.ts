/**
 * The world filter on the real kernel: every refused call, each shown to reach the kernel without it (issue 19).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECCOMP_ALWAYS_DENIED, seccompSupported, worldSeccompFilter, X64_SYSCALLS } from '@dsh/sandbox';
import { describe, expect, it } from 'vitest';
import { BWRAP } from './seccomp-support.js';

/** What a command run in a bwrap world printed, and how it ended. */
interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `argv` under bwrap as a world would (read-only root, own /dev, /proc and pid namespace,
 * a session of its own), with `filter` on fd 3 given to `--seccomp 3`, or with no filter at all.
 */
async function inBwrap(argv: readonly string[], filter: Buffer | null): Promise<Ran> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-seccomp-'));
  let fd: number | undefined;
  try {
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--new-session'];
    args.push('--die-with-parent');
    if (filter !== null) {
      const path = join(dir, 'world.bpf');
      writeFileSync(path, filter);
      fd = openSync(path, 'r');
      args.push('--seccomp', '3');
    }
    const child = spawn(BWRAP, [...args, '--', ...argv], { stdio: ['ignore', 'pipe', 'pipe', fd ?? 'ignore'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    // A guard, not a wait: a hung world is ended so the test fails instead of hanging.
    const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (status) => resolve(status));
    }).finally(() => clearTimeout(guard));
    return { code, stdout, stderr };
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

type Arg = number | string;
let strings = 0;
/** A Perl string the call may point at (a fresh variable: Perl passes a pointer to its buffer). */
const str = (text: string): string => `(my $s${++strings} = '${text}')`;
const sc = (...call: readonly Arg[]): string => `syscall(${call.join(', ')})`;
/** A raw clone: the child leaves at once, the caller reaps it. */
const cloneWith = (flags: number): string =>
  `do { my $r = syscall(56, ${flags}, 0, 0, 0, 0); POSIX::_exit(0) if $r == 0; waitpid($r, 0) if $r > 0; $r }`;
const SIGCHLD = 17;
const NOFILE = 7;
const NULL_FD = '$null';
/** The probe's own pid (`$$` itself is magic, and Perl's syscall would pass it as a string pointer). */
const SELF = '($$ + 0)';

/**
 * Every call refused outright, with arguments that do nothing even for root with every
 * capability (bwrap keeps root's), failing on a bad pointer, descriptor, flag or path first.
 */
const ALWAYS: Record<string, readonly [number, ...Arg[]]> = {
  ptrace: [101, 16, 999_999, 0, 0], // PTRACE_ATTACH to no process
  process_vm_readv: [310, SELF, 0, 0, 0, 0, 0], // nothing to copy
  process_vm_writev: [311, SELF, 0, 0, 0, 0, 0],
  kexec_load: [246, 0, 1000, 0, 0x8000], // too many segments, unknown flag
  kexec_file_load: [320, -1, -1, 0, 0, 0x8000], // unknown flag
  init_module: [175, 0, 0, str('')], // an empty image
  finit_module: [313, -1, str(''), 0],
  delete_module: [176, str('dsh_no_such_module'), 0],
  create_module: [174, 0, 0],
  get_kernel_syms: [177, 0],
  query_module: [178, 0, 0, 0, 0, 0],
  bpf: [321, 9999, 0, 0], // no such command
  perf_event_open: [298, 0, 0, -1, -1, 0], // attr NULL
  keyctl: [250, 9999, 0, 0, 0, 0], // no such operation
  add_key: [248, 0, 0, 0, 0, 0],
  request_key: [249, 0, 0, 0, 0],
  userfaultfd: [323, 0x7fff_fff0], // unknown flags
  mount: [165, 0, 0, 0, 0, 0], // target NULL
  umount2: [166, str('/nonexistent-dsh'), 0],
  pivot_root: [155, 0, 0],
  move_mount: [429, -1, str(''), -1, str(''), 0],
  open_tree: [428, -1, str(''), 0],
  fsopen: [430, 0, 0],
  fsconfig: [431, -1, 0, 0, 0, 0],
  fsmount: [432, -1, 0, 0],
  fspick: [433, -1, str(''), 0],
  mount_setattr: [442, -1, str(''), 0, 0, 0], // size 0
  swapon: [167, str('/nonexistent-dsh'), 0],
  swapoff: [168, str('/nonexistent-dsh')],
  reboot: [169, 0, 0, 0, 0], // wrong magic
  acct: [163, str('/nonexistent-dsh')],
  setns: [308, -1, 0],
  iopl: [172, 4], // no such level
  ioperm: [173, 0, 0, 0], // an empty range
  quotactl: [179, 0, 0, 0, 0],
  quotactl_fd: [443, -1, 0, 0, 0],
  lookup_dcookie: [212, 0, 0, 0],
  nfsservctl: [180, 0, 0, 0],
  settimeofday: [164, 1, 0], // a bad pointer, read before anything is set
  clock_settime: [227, 0, 0],
  clock_adjtime: [305, 0, 0],
  adjtimex: [159, 0],
  syslog: [103, 10, 0, 0], // SYSLOG_ACTION_SIZE_BUFFER
  vhangup: [153], // the probe has no terminal (its own session)
  io_uring_setup: [425, 0, 0],
  io_uring_enter: [426, -1, 0, 0, 0, 0, 0],
  io_uring_register: [427, -1, 0, 0, 0],
  open_by_handle_at: [304, -1, 0, 0],
  name_to_handle_at: [303, -100, str('/'), 0, 0, 0],
  pidfd_getfd: [438, -1, 0, 0],
  pidfd_send_signal: [424, -1, 0, 0, 0], // a bad pidfd: EBADF without the filter
  kcmp: [312, SELF, SELF, 0, 0, 0], // KCMP_FILE of fd 0 with itself
  process_madvise: [440, -1, 0, 0, 0, 0],
  uselib: [134, str('/nonexistent-dsh')],
  _sysctl: [156, 0],
};

/** A call made in a child of the probe script, and what the filter must make of it. */
interface Probe {
  readonly name: string;
  readonly perl: string;
  /** Under the filter: refused with EPERM or ENOSYS, or run ('ok': anything but -1; a number: that errno). */
  readonly filtered: 'EPERM' | 'ENOSYS' | 'ok' | number;
}

const NAMESPACE_FLAGS: Record<string, number> = {
  NEWNS: 0x2_0000,
  NEWCGROUP: 0x0200_0000,
  NEWUTS: 0x0400_0000,
  NEWIPC: 0x0800_0000,
  NEWUSER: 0x1000_0000,
  NEWPID: 0x2000_0000,
  NEWNET: 0x4000_0000,
};

const PROBES: readonly Probe[] = [
  ...Object.entries(ALWAYS).map(([name, call]): Probe => ({ name, perl: sc(...call), filtered: 'EPERM' })),
  { name: 'x32 getpid', perl: sc(0x4000_0000 + 39), filtered: 'EPERM' },
  ...Object.entries(NAMESPACE_FLAGS).flatMap(([flag, bits]): Probe[] => [
    { name: `unshare ${flag}`, perl: sc(272, bits), filtered: 'EPERM' },
    { name: `clone ${flag}`, perl: cloneWith(bits | SIGCHLD), filtered: 'EPERM' },
  ]),
  { name: 'unshare NEWTIME', perl: sc(272, 0x80), filtered: 'EPERM' },
  { name: 'clone3', perl: sc(435, 0, 0), filtered: 'ENOSYS' },
  { name: 'ioctl TIOCSTI', perl: sc(16, NULL_FD, 0x5412, str('x')), filtered: 'EPERM' },
  { name: 'ioctl TIOCLINUX', perl: sc(16, NULL_FD, 0x541c, str('x')), filtered: 'EPERM' },
  { name: 'ioctl TIOCSTI, high bits set', perl: sc(16, NULL_FD, 0x1_0000_5412, str('x')), filtered: 'EPERM' },
  { name: 'kill 1', perl: sc(62, 1, 0), filtered: 'EPERM' },
  { name: 'kill 2', perl: sc(62, 2, 0), filtered: 'EPERM' },
  { name: 'kill 2, high bits set', perl: sc(62, 0x1_0000_0002, 0), filtered: 'EPERM' },
  { name: 'kill -1', perl: sc(62, -1, 0), filtered: 'EPERM' },
  { name: 'kill -2 (group)', perl: sc(62, -2, 0), filtered: 'EPERM' },
  { name: 'tkill 2', perl: sc(200, 2, 0), filtered: 'EPERM' },
  { name: 'tgkill 2 2', perl: sc(234, 2, 2, 0), filtered: 'EPERM' },
  { name: 'rt_sigqueueinfo 2', perl: sc(129, 2, 0, 0), filtered: 'EPERM' },
  { name: 'rt_tgsigqueueinfo 2', perl: sc(297, 2, 2, 0, 0), filtered: 'EPERM' },
  { name: 'pidfd_open 1', perl: sc(434, 1, 0), filtered: 'EPERM' },
  { name: 'prlimit64 2', perl: sc(302, 2, NOFILE, 0, 0), filtered: 'EPERM' },
  { name: 'prlimit64 -1', perl: sc(302, -1, NOFILE, 0, 0), filtered: 'EPERM' },
  { name: 'sched_setaffinity 2', perl: sc(203, 2, 0, 0), filtered: 'EPERM' },
  { name: 'sched_setscheduler 2', perl: sc(144, 2, 0, 0), filtered: 'EPERM' },
  { name: 'sched_setparam 2', perl: sc(142, 2, 0), filtered: 'EPERM' },
  { name: 'setpriority pid 2', perl: sc(141, 0, 2, 19), filtered: 'EPERM' },
  { name: 'setpriority pid -1', perl: sc(141, 0, -1, 19), filtered: 'EPERM' },
  { name: 'ioprio_set pid 2 (idle class)', perl: sc(251, 1, 2, 3 << 13), filtered: 'EPERM' },
  // What stays allowed.
  { name: 'getpid', perl: sc(39), filtered: 'ok' },
  { name: 'personality (query)', perl: sc(135, 0xffff_ffff), filtered: 'ok' },
  { name: 'unshare FILES', perl: sc(272, 0x400), filtered: 'ok' },
  { name: 'unshare FS', perl: sc(272, 0x200), filtered: 'ok' },
  { name: 'clone SIGCHLD', perl: cloneWith(SIGCHLD), filtered: 'ok' },
  { name: 'ioctl TCGETS /dev/null', perl: sc(16, NULL_FD, 0x5401, str('x'.repeat(64))), filtered: 25 }, // ENOTTY
  { name: 'kill self', perl: sc(62, SELF, 0), filtered: 'ok' },
  { name: 'tgkill self', perl: sc(234, SELF, SELF, 0), filtered: 'ok' },
  { name: 'pidfd_open self', perl: sc(434, SELF, 0), filtered: 'ok' },
  { name: 'prlimit64 self', perl: sc(302, 0, NOFILE, 0, 0), filtered: 'ok' },
  { name: 'setpriority self', perl: sc(141, 0, 0, 19), filtered: 'ok' },
  { name: 'ioprio_set self (idle class)', perl: sc(251, 1, 0, 3 << 13), filtered: 'ok' },
];

/** A Perl script that makes each probe's call in a child of its own (so no call changes the next) and prints `name, return, errno`. */
const PROBE_SCRIPT = [
  'use strict; use POSIX (); $| = 1;',
  'setpgrp(0, 0) or die "setpgrp: $!"; # its own process group, so kill(-2) names a group that exists',
  "open(my $NULL, '<', '/dev/null') or die \"open: $!\"; my $null = fileno($NULL);",
  'sub probe { my ($name, $call) = @_; my $pid = fork() // die "fork: $!";',
  '  if ($pid == 0) { $! = 0; my $r = $call->(); print "$name\\t$r\\t", ($r == -1 ? $! + 0 : 0), "\\n"; POSIX::_exit(0) }',
  '  waitpid($pid, 0) == $pid or die "waitpid: $!" }',
  ...PROBES.map((probe) => `probe('${probe.name}', sub { ${probe.perl} });`),
  'print "done\\n";',
].join('\n');

/** Each probe's outcome: its return and, when that is -1, its errno. */
function outcomes(ran: Ran): Map<string, { ret: number; errno: number }> {
  expect(ran.stdout.endsWith('done\n'), ran.stderr).toBe(true);
  expect(ran.code).toBe(0);
  const found = new Map<string, { ret: number; errno: number }>();
  for (const line of ran.stdout.split('\n').slice(0, -2)) {
    const [name = '', ret = '', errno = ''] = line.split('\t');
    found.set(name, { ret: Number(ret), errno: Number(errno) });
  }
  expect([...found.keys()]).toEqual(PROBES.map((p) => p.name));
  return found;
}

const PROTECTED = [1, 2]; // in the world's pid namespace: bwrap's init, then the probe script (and its group)

describe.runIf(seccompSupported())('the world filter in a real kernel (bwrap --seccomp)', () => {
  const filter = worldSeccompFilter({ protectedPids: PROTECTED });
  const perl = ['perl', '-e', PROBE_SCRIPT];

  it('probes every call it refuses outright, by the kernel’s numbers', () => {
    expect(Object.keys(ALWAYS).sort()).toEqual(Object.keys(SECCOMP_ALWAYS_DENIED).sort());
    for (const [name, [number]] of Object.entries(ALWAYS))
      expect(number, name).toBe(X64_SYSCALLS[name as keyof typeof X64_SYSCALLS]);
  });

  it('refuses each denied call with EPERM (clone3 ENOSYS), lets the rest run, and each probe reaches the kernel without it', async () => {
    const [withFilter, without] = await Promise.all([inBwrap(perl, filter), inBwrap(perl, null)]);
    const filtered = outcomes(withFilter);
    const control = outcomes(without);
    for (const probe of PROBES) {
      const got = filtered.get(probe.name);
      const bare = control.get(probe.name);
      const seen = `${probe.name}: filtered ${JSON.stringify(got)}, unfiltered ${JSON.stringify(bare)}`;
      if (probe.filtered === 'EPERM') {
        expect(got, seen).toEqual({ ret: -1, errno: 1 });
        expect(bare?.ret === -1 && bare.errno === 1, seen).toBe(false);
      } else if (probe.filtered === 'ENOSYS') {
        expect(got, seen).toEqual({ ret: -1, errno: 38 });
        expect(bare?.ret === -1 && bare.errno === 38, seen).toBe(false);
      } else if (probe.filtered === 'ok') {
        expect(got?.ret, seen).not.toBe(-1);
      } else {
        expect(got, seen).toEqual({ ret: -1, errno: probe.filtered });
      }
    }
  });

  it('is in force for the command (Seccomp: 2 in /proc/self/status)', async () => {
    const ran = await inBwrap(['grep', '^Seccomp:', '/proc/self/status'], filter);
    expect(ran.stdout).toMatch(/^Seccomp:\s+2$/m);
    expect((await inBwrap(['grep', '^Seccomp:', '/proc/self/status'], null)).stdout).toMatch(/^Seccomp:\s+0$/m);
  });

  it('stops unshare -U and mount, which work without it', async () => {
    const commands = [
      ['unshare', '-U', 'true'],
      ['mount', '-t', 'tmpfs', 'x', '/mnt'],
    ];
    for (const argv of commands) {
      const [withFilter, without] = await Promise.all([inBwrap(argv, filter), inBwrap(argv, null)]);
      expect(without.code, `${argv.join(' ')} without the filter: ${without.stderr}`).toBe(0);
      expect(withFilter.code, argv.join(' ')).not.toBe(0);
      expect(withFilter.stderr).toMatch(/not permitted|permission denied/i);
    }
  });

  it('keeps node, bash and python starting processes (what the runtime server needs)', async () => {
    const commands = [
      [
        'node',
        '-e',
        "require('child_process').execFileSync('true'); require('fs').readFile('/etc/hostname', (e) => process.exit(e ? 1 : 0))",
      ],
      ['bash', '-c', 'sleep 0 & wait $! && echo ok'],
      ['python3', '-c', 'import subprocess; subprocess.run(["true"], check=True)'],
    ];
    for (const argv of commands) {
      const ran = await inBwrap(argv, filter);
      expect(ran.code, `${argv[0]}: ${ran.stderr}`).toBe(0);
    }
  });
});
