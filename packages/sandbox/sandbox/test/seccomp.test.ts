import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AUDIT_ARCH_X86_64,
  BPF_MAXINSNS,
  bpf,
  bpfAssemble,
  bpfDecode,
  MAX_PROTECTED_PIDS,
  SECCOMP_ALWAYS_DENIED,
  SECCOMP_DENIED,
  SECCOMP_ENOSYS,
  SECCOMP_EPERM,
  SECCOMP_PID_ARGUMENT,
  seccompSupported,
  worldSeccompFilter,
  X64_SYSCALLS,
} from '@dsh/sandbox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOfSync as codeOf } from '../../../../test/support.js';

const BWRAP = '/usr/bin/bwrap';
const ALLOW = 0x7fff_0000;
const EPERM = 0x0005_0001;
const ENOSYS = 0x0005_0026;
const KILL_PROCESS = 0x8000_0000;

/** Runs a classic-BPF program over a seccomp_data record, the way the kernel does (the opcodes dsh emits). */
function runBpf(program: Buffer, nr: number, args: readonly bigint[], arch = AUDIT_ARCH_X86_64): number {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch, 4);
  for (const [i, arg] of args.entries()) data.writeBigUInt64LE(BigInt.asUintN(64, arg), 16 + 8 * i);
  const insns = bpfDecode(program);
  let a = 0;
  for (let pc = 0; pc < insns.length; pc += 1) {
    const { code, jt, jf, k } = insns[pc] as (typeof insns)[number];
    const branch = (taken: boolean): void => {
      pc += taken ? jt : jf;
    };
    if (code === 0x20) a = data.readUInt32LE(k);
    else if (code === 0x54) a = (a & k) >>> 0;
    else if (code === 0x05) pc += k;
    else if (code === 0x15) branch(a === k);
    else if (code === 0x25) branch(a > k);
    else if (code === 0x35) branch(a >= k);
    else if (code === 0x45) branch((a & k) !== 0);
    else if (code === 0x06) return k;
    else throw new Error(`opcode 0x${code.toString(16)} at ${pc}`);
  }
  throw new Error('ran off the end of the program');
}

describe('the classic-BPF assembler', () => {
  const hex = (lines: Parameters<typeof bpfAssemble>[0]) => bpfAssemble(lines).toString('hex');

  it('encodes struct sock_filter as 8 little-endian bytes', () => {
    expect(hex([bpf.ld(4), bpf.ret(0x7fff_0000)])).toBe('2000000004000000' + '060000000000ff7f');
    expect(hex([bpf.and(0xff), bpf.ret(0)])).toBe('54000000ff000000' + '0600000000000000');
    expect(hex([bpf.jeq(0xc000_003e, undefined, 'kill'), bpf.ret(1), bpf.label('kill'), bpf.ret(0x8000_0000)])).toBe(
      '150000013e0000c0' + '0600000001000000' + '0600000000000080',
    );
    expect(hex([bpf.jset(0x4000_0000, 'x'), bpf.jge(7, 'x', 'x'), bpf.ret(0), bpf.label('x'), bpf.ret(1)])).toBe(
      '4500020000000040' + '3500010107000000' + '0600000000000000' + '0600000001000000',
    );
  });

  it('resolves labels to offsets from the next instruction, ja into k', () => {
    const program = bpfDecode(
      bpfAssemble([
        bpf.ld(0),
        bpf.jeq(1, 'one', 'other'),
        bpf.ja('other'),
        bpf.label('one'),
        bpf.label('alias'),
        bpf.ret(1),
        bpf.label('other'),
        bpf.jgt(3, 'alias2'),
        bpf.label('alias2'),
        bpf.ret(2),
      ]),
    );
    expect(program).toEqual([
      { code: 0x20, jt: 0, jf: 0, k: 0 },
      { code: 0x15, jt: 1, jf: 2, k: 1 },
      { code: 0x05, jt: 0, jf: 0, k: 1 },
      { code: 0x06, jt: 0, jf: 0, k: 1 },
      { code: 0x25, jt: 0, jf: 0, k: 3 },
      { code: 0x06, jt: 0, jf: 0, k: 2 },
    ]);
  });

  it('refuses what the kernel would refuse or misread, with SECCOMP_INVALID', () => {
    const rets = (n: number) => Array.from({ length: n }, () => bpf.ret(0));
    const far = [bpf.jeq(1, 'far'), ...rets(256), bpf.label('far'), bpf.ret(1)];
    expect(codeOf(() => bpfAssemble(far))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.jeq(1, 'far'), ...rets(255), bpf.label('far'), bpf.ret(1)]))).toBe('none');
    expect(codeOf(() => bpfAssemble([bpf.jeq(1, 'nowhere'), bpf.ret(0)]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.ja('nowhere'), bpf.ret(0)]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble(rets(BPF_MAXINSNS + 1)))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble(rets(BPF_MAXINSNS)))).toBe('none');
    expect(codeOf(() => bpfAssemble([]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.label('back'), bpf.ret(0), bpf.jeq(1, 'back'), bpf.ret(0)]))).toBe(
      'SECCOMP_INVALID',
    );
    expect(codeOf(() => bpfAssemble([bpf.label('a'), bpf.label('a'), bpf.ret(0)]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.jeq(1, 'end'), bpf.ret(0), bpf.label('end')]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.ret(0), bpf.ld(0)]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.ret(-1)]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([bpf.ret(2 ** 32)]))).toBe('SECCOMP_INVALID');
    expect(codeOf(() => bpfAssemble([{ kind: 'insn', code: 0x06, k: 0, jt: 'x' }, bpf.label('x'), bpf.ret(0)]))).toBe(
      'SECCOMP_INVALID',
    );
    expect(codeOf(() => bpfDecode(Buffer.alloc(9)))).toBe('SECCOMP_INVALID');
  });

  it('any program of JEQ and RET with labels assembles to 8 bytes an instruction, every jump inside it', () => {
    const shape = fc
      .array(
        fc.record({
          ret: fc.boolean(),
          k: fc.integer({ min: 0, max: 0xffff_ffff }),
          jt: fc.option(fc.integer({ min: 1, max: 256 })),
          jf: fc.option(fc.integer({ min: 1, max: 256 })),
        }),
        { minLength: 1, maxLength: 400 },
      )
      .map((rows) => rows.map((row, i) => ({ ...row, ret: row.ret || i === rows.length - 1 })));
    fc.assert(
      fc.property(shape, (rows) => {
        const n = rows.length;
        // A chosen distance is clamped so the target is a later instruction; a label names every position.
        const target = (i: number, d: number | null) => (d === null ? null : Math.min(i + d, n - 1));
        const lines = rows.flatMap((row, i) => {
          const jt = target(i, row.jt);
          const jf = target(i, row.jf);
          const insn = row.ret
            ? bpf.ret(row.k)
            : bpf.jeq(row.k, jt === null ? undefined : `L${jt}`, jf === null ? undefined : `L${jf}`);
          return [bpf.label(`L${i}`), insn];
        });
        const bytes = bpfAssemble(lines);
        expect(bytes.length).toBe(8 * n);
        bpfDecode(bytes).forEach((insn, i) => {
          const row = rows[i] as (typeof rows)[number];
          expect(insn.k).toBe(row.k);
          if (row.ret) return;
          expect(i + 1 + insn.jt).toBeLessThan(n);
          expect(i + 1 + insn.jf).toBeLessThan(n);
          expect(i + 1 + insn.jt).toBe(target(i, row.jt) ?? i + 1);
          expect(i + 1 + insn.jf).toBe(target(i, row.jf) ?? i + 1);
        });
      }),
    );
  });
});

describe('the world filter, as a program', () => {
  const nr = X64_SYSCALLS;

  it('is a whole number of instructions within the kernel limit, for up to MAX_PROTECTED_PIDS pids', () => {
    const most = Array.from({ length: MAX_PROTECTED_PIDS }, (_, i) => 4_194_304 - i);
    for (const protectedPids of [[], [1, 2], most]) {
      const program = worldSeccompFilter({ protectedPids });
      expect(program.length % 8).toBe(0);
      expect(program.length / 8).toBeLessThanOrEqual(BPF_MAXINSNS);
    }
    expect(codeOf(() => worldSeccompFilter({ protectedPids: [...most, 7] }))).toBe('SECCOMP_INVALID');
    for (const bad of [0, -1, 1.5, 4_194_305, Number.NaN]) {
      expect(codeOf(() => worldSeccompFilter({ protectedPids: [bad] }))).toBe('SECCOMP_INVALID');
    }
  });

  it('names every call it refuses, and says which architectures it fits', () => {
    for (const name of [...Object.keys(SECCOMP_ALWAYS_DENIED), ...Object.keys(SECCOMP_PID_ARGUMENT)]) {
      expect(SECCOMP_DENIED[name], name).toMatch(/\w/);
    }
    for (const name of ['clone', 'clone3', 'unshare', 'ioctl', 'x32']) expect(SECCOMP_DENIED[name]).toMatch(/\w/);
    expect(SECCOMP_DENIED.personality).toBeUndefined();
    expect([SECCOMP_EPERM, SECCOMP_ENOSYS]).toEqual([1, 38]);
    expect(seccompSupported('x64')).toBe(true);
    expect(seccompSupported('arm64')).toBe(false);
    expect(seccompSupported('ia32')).toBe(false);
  });

  it('uses the kernel’s x86_64 numbers (asm/unistd_64.h)', () => {
    const header = readFileSync('/usr/include/x86_64-linux-gnu/asm/unistd_64.h', 'utf8');
    for (const [name, number] of Object.entries(X64_SYSCALLS)) {
      expect(header, name).toMatch(new RegExp(`#define __NR_${name} ${number}\\n`));
    }
  });

  it('decides by architecture, ABI, number and arguments', () => {
    const program = worldSeccompFilter({ protectedPids: [1, 2] });
    const run = (call: number, ...args: bigint[]) => runBpf(program, call, args);
    expect(runBpf(program, 20, [], 0x4000_0003)).toBe(KILL_PROCESS); // i386 (getpid there)
    expect(run(0x4000_0000 + 39)).toBe(EPERM); // x32 getpid
    expect(run(39)).toBe(ALLOW);
    expect(run(nr.clone3)).toBe(ENOSYS);
    expect(run(nr.ptrace)).toBe(EPERM);
    expect(run(nr.unshare, 0x80n)).toBe(EPERM); // CLONE_NEWTIME
    expect(run(nr.clone, 0x80n | 17n)).toBe(ALLOW); // 0x80 is part of clone's exit signal
    expect(run(nr.clone, 0x3d0f00n)).toBe(ALLOW); // what pthread_create passes
    expect(run(nr.ioctl, 0n, 0x1_0000_5412n)).toBe(EPERM); // the kernel drops the high bits of the request
    expect(run(nr.kill, 0x1_0000_0002n)).toBe(EPERM); // and of a pid
    expect(run(nr.kill, BigInt(-2 >>> 0))).toBe(EPERM);
    expect(run(nr.tkill, BigInt(-2 >>> 0))).toBe(ALLOW); // a process group means something to kill only
    expect(run(nr.setpriority, 0n, 2n)).toBe(EPERM);
    expect(run(nr.setpriority, 2n, 3n)).toBe(ALLOW);
    expect(run(nr.kill, 3n)).toBe(ALLOW);
  });

  it('protects a whole pid range (the machinery’s threads) when asked, and only that range', () => {
    const program = worldSeccompFilter({ protectedPids: [1, 2], protectedPidMax: 32 });
    const run = (call: number, ...args: bigint[]) => runBpf(program, call, args);
    for (const pid of [1n, 7n, 32n]) {
      expect(run(nr.kill, pid)).toBe(EPERM);
      expect(run(nr.tkill, pid)).toBe(EPERM);
      expect(run(nr.prlimit64, pid)).toBe(EPERM);
    }
    expect(run(nr.kill, BigInt(-20 >>> 0))).toBe(EPERM); // a group in the range
    expect(run(nr.kill, BigInt(-33 >>> 0))).toBe(ALLOW);
    expect(run(nr.kill, 0n)).toBe(ALLOW); // the caller's own group
    expect(run(nr.kill, 33n)).toBe(ALLOW);
    expect(run(nr.tkill, 4000n)).toBe(ALLOW);
    expect(run(nr.prlimit64, 0n)).toBe(ALLOW); // itself
    expect(run(nr.pidfd_send_signal, 3n, 0n)).toBe(EPERM);
    expect(codeOf(() => worldSeccompFilter({ protectedPids: [], protectedPidMax: 0 }))).toBe('SECCOMP_INVALID');
  });

  it('matches a plain statement of the policy for random pids, calls and arguments', () => {
    const interesting = [
      ...Object.values(X64_SYSCALLS),
      0,
      39,
      135,
      0x4000_0000,
      0x4000_0000 + 62,
      0x7fff_ffff,
      0xffff_ffff,
    ];
    const pidsArb = fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 4_194_304 })), {
      maxLength: MAX_PROTECTED_PIDS,
    });
    const low = (pids: number[]) =>
      fc.oneof(
        fc.integer({ min: 0, max: 0xffff_ffff }),
        fc.constantFrom(0, 0xffff_ffff, 0x5412, 0x541c, 0x5401, 0x80, 0x400, 0x1000_0000, 0x2_0000, 17),
        ...(pids.length > 0 ? [fc.constantFrom(...pids), fc.constantFrom(...pids.map((p) => -p >>> 0))] : []),
      );
    const arg = (pids: number[]) =>
      fc
        .tuple(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff_ffff })), low(pids))
        .map(([hi, lo]) => (BigInt(hi) << 32n) | BigInt(lo));
    const callArb = pidsArb.chain((pids) =>
      fc.record({
        pids: fc.constant(pids),
        nr: fc.oneof(fc.constantFrom(...interesting), fc.integer({ min: 0, max: 0xffff_ffff })),
        args: fc.array(arg(pids), { minLength: 6, maxLength: 6 }),
      }),
    );
    const always = new Set<number>(Object.keys(SECCOMP_ALWAYS_DENIED).map((n) => nr[n as keyof typeof nr]));
    const pidArg = new Map<number, number>(
      Object.entries(SECCOMP_PID_ARGUMENT).map(([n, i]) => [nr[n as keyof typeof nr], i]),
    );
    const expected = (pids: number[], call: number, args: bigint[]): number => {
      const lo = (i: number) => Number(BigInt.asUintN(32, args[i] ?? 0n));
      if (call & 0x4000_0000 || always.has(call)) return EPERM;
      if (call === nr.clone3) return ENOSYS;
      if (call === nr.unshare) return lo(0) & 0x7e02_0080 ? EPERM : ALLOW;
      if (call === nr.clone) return lo(0) & 0x7e02_0000 ? EPERM : ALLOW;
      if (call === nr.ioctl) return lo(1) === 0x5412 || lo(1) === 0x541c ? EPERM : ALLOW;
      const at = pidArg.get(call);
      if (at === undefined) return ALLOW;
      const pid = lo(at) | 0; // as the kernel's int sees it
      if (pid === -1 || pids.includes(pid)) return EPERM;
      return call === nr.kill && pids.includes(-pid) ? EPERM : ALLOW;
    };
    fc.assert(
      fc.property(callArb, ({ pids, nr: call, args }) => {
        const program = worldSeccompFilter({ protectedPids: pids });
        expect(runBpf(program, call, args)).toBe(expected(pids, call, args));
      }),
      { numRuns: 2000 },
    );
  });
});

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
