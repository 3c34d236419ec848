/**
 * The seccomp filter of a sandbox world (DESIGN §5: "a seccomp filter generated in TypeScript
 * and given to bwrap"): a classic-BPF program that refuses the system calls a confined command
 * could use against the host kernel or against the world's own machinery, and allows the rest.
 */
import { DshError } from '@dsh/core';
import { type BpfLine, bpf, bpfAssemble, SECCOMP_INVALID } from './bpf.js';
import { SECCOMP_ALWAYS_DENIED, SECCOMP_ENOSYS, SECCOMP_EPERM, SECCOMP_PID_ARGUMENT } from './denied.js';
import {
  AUDIT_ARCH_X86_64,
  SECCOMP_DATA_ARCH,
  SECCOMP_DATA_NR,
  seccompArgLow,
  X32_SYSCALL_BIT,
  X64_SYSCALLS,
  type X64Syscall,
} from './x64.js';

/** Verdict: end the whole process (used for a call from a foreign ABI, e.g. i386 `int 0x80`). */
export const SECCOMP_RET_KILL_PROCESS = 0x8000_0000;
/** Verdict: fail the call with the errno in the low 16 bits, without running it. */
export const SECCOMP_RET_ERRNO = 0x0005_0000;
/** Verdict: run the call. */
export const SECCOMP_RET_ALLOW = 0x7fff_0000;

/** clone's namespace flags (arg0); 0x80 is not one here, it belongs to the exit-signal byte. */
export const CLONE_NAMESPACE_FLAGS = 0x7e02_0000; // NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
/** unshare's namespace flags: clone's plus CLONE_NEWTIME (0x80). */
export const UNSHARE_NAMESPACE_FLAGS = CLONE_NAMESPACE_FLAGS | 0x80;
/** ioctl requests that act on a terminal beyond the caller's own input: TIOCSTI fakes input, TIOCLINUX drives the console. */
const TERMINAL_IOCTLS = [0x5412, 0x541c] as const;
/**
 * ioctl requests that route SIGIO/SIGURG of a descriptor to a process or group named behind a
 * pointer (FIOSETOWN, SIOCSPGRP): a way to signal the machinery around the pid checks.
 */
const OWNER_IOCTLS = [0x8901, 0x8902] as const;
/** fcntl commands that route a descriptor's signals: F_SETOWN (pid or -group in the argument), F_SETOWN_EX (behind a pointer). */
const F_SETOWN = 8;
const F_SETOWN_EX = 15;
/** A pid argument of -1 (low 32 bits): "every process" for kill. */
const EVERY_PROCESS = 0xffff_ffff;

/** Most pids one filter protects: each costs two compares, and every jump must stay within 255 instructions. */
export const MAX_PROTECTED_PIDS = 64;
/** The largest protected pid range: the machinery's threads fit, and commands still get the pids above. */
export const MAX_PROTECTED_PID_RANGE = 1024;
/** Largest pid the kernel hands out (PID_MAX_LIMIT on 64-bit); a larger number is no process. */
const PID_MAX_LIMIT = 4_194_304;

/**
 * Whether {@link worldSeccompFilter} fits this architecture (a Node `process.arch` value).
 * True for 'x64' only for now: the syscall numbers and audit architecture are x86_64's, and on
 * any other architecture the program would end every process at its first call.
 */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64';
}

/** Options of {@link worldSeccompFilter}. */
export interface WorldSeccompOptions {
  /**
   * Pids, as seen inside the world's pid namespace, that a command may not signal, open a
   * pidfd on, re-limit or re-schedule: the world's init and runtime server. 1 to 4194304,
   * at most {@link MAX_PROTECTED_PIDS}.
   */
  readonly protectedPids: readonly number[];
  /**
   * Every pid from 1 to this one is protected too (the world's machinery: the runtime server's
   * threads take the first pids of its namespace, and it makes sure no command gets one of them).
   * @default none
   */
  readonly protectedPidMax?: number;
}

/**
 * The world's seccomp program for x86_64 (check {@link seccompSupported} first), as the bytes
 * bwrap's `--seccomp FD` reads. A foreign ABI is killed; the calls in {@link SECCOMP_DENIED}
 * fail with EPERM (clone3 with ENOSYS); everything else runs. Throws `SECCOMP_INVALID` for a
 * protected pid out of range or too many of them.
 */
export function worldSeccompFilter(options: WorldSeccompOptions): Buffer {
  const pids = [...new Set(options.protectedPids)].sort((a, b) => a - b);
  for (const pid of pids) {
    if (!Number.isInteger(pid) || pid < 1 || pid > PID_MAX_LIMIT) {
      throw new DshError(SECCOMP_INVALID, `protected pid ${pid} is not a pid (1-${PID_MAX_LIMIT})`, { data: { pid } });
    }
  }
  if (pids.length > MAX_PROTECTED_PIDS) {
    throw new DshError(SECCOMP_INVALID, `at most ${MAX_PROTECTED_PIDS} protected pids`, {
      data: { count: pids.length, limit: MAX_PROTECTED_PIDS },
    });
  }
  const max = options.protectedPidMax;
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > MAX_PROTECTED_PID_RANGE)) {
    throw new DshError(SECCOMP_INVALID, `protectedPidMax must be 1-${MAX_PROTECTED_PID_RANGE}`, { data: { max } });
  }
  const nr = (name: X64Syscall): number => X64_SYSCALLS[name];
  const pidArgs = Object.entries(SECCOMP_PID_ARGUMENT) as [keyof typeof SECCOMP_PID_ARGUMENT, 0 | 1][];
  const lines: BpfLine[] = [
    bpf.ld(SECCOMP_DATA_ARCH),
    bpf.jeq(AUDIT_ARCH_X86_64, undefined, 'foreign-abi'),
    bpf.ld(SECCOMP_DATA_NR),
    bpf.jset(X32_SYSCALL_BIT, 'eperm'),
    ...(Object.keys(SECCOMP_ALWAYS_DENIED) as X64Syscall[]).map((name) => bpf.jeq(nr(name), 'eperm')),
    bpf.jeq(nr('clone3'), 'enosys'),
    bpf.jeq(nr('unshare'), 'unshare'),
    bpf.jeq(nr('clone'), 'clone'),
    bpf.jeq(nr('ioctl'), 'ioctl'),
    bpf.jeq(nr('fcntl'), 'fcntl'),
    bpf.jeq(nr('kill'), 'kill'),
    ...pidArgs.filter(([name]) => name !== 'kill').map(([name, arg]) => bpf.jeq(nr(name), `pid-arg${arg}`)),
    bpf.ret(SECCOMP_RET_ALLOW),
    bpf.label('eperm'),
    bpf.ret(SECCOMP_RET_ERRNO | SECCOMP_EPERM),
    bpf.label('enosys'),
    bpf.ret(SECCOMP_RET_ERRNO | SECCOMP_ENOSYS),
    bpf.label('foreign-abi'),
    bpf.ret(SECCOMP_RET_KILL_PROCESS),
    // Flag checks: the low 32 bits hold every namespace flag.
    bpf.label('unshare'),
    bpf.ld(seccompArgLow(0)),
    bpf.jset(UNSHARE_NAMESPACE_FLAGS, 'deny', 'allow'),
    bpf.label('clone'),
    bpf.ld(seccompArgLow(0)),
    bpf.jset(CLONE_NAMESPACE_FLAGS, 'deny', 'allow'),
    bpf.label('ioctl'),
    bpf.ld(seccompArgLow(1)), // the request is an unsigned int: the kernel ignores the high bits too
    ...[...TERMINAL_IOCTLS, ...OWNER_IOCTLS].map((request) => bpf.jeq(request, 'deny')),
    bpf.ja('allow'),
    // Pid checks: pid_t is an int, so the low 32 bits are what the kernel acts on.
    bpf.label('pid-arg1'),
    bpf.ld(seccompArgLow(1)),
    bpf.ja('pids'),
    bpf.label('pid-arg0'),
    bpf.ld(seccompArgLow(0)),
    bpf.ja('pids'),
    // fcntl: the owner a descriptor's signals go to is checked like kill's target.
    bpf.label('fcntl'),
    bpf.ld(seccompArgLow(1)),
    bpf.jeq(F_SETOWN_EX, 'deny'),
    bpf.jeq(F_SETOWN, undefined, 'allow'),
    bpf.ld(seccompArgLow(2)),
    bpf.ja('owner'),
    bpf.label('kill'),
    bpf.ld(seccompArgLow(0)),
    bpf.label('owner'),
    ...pids.map((pid) => bpf.jeq(-pid >>> 0, 'deny')), // a protected process group
    ...(max ? [bpf.jge(-max >>> 0, 'deny')] : []), // a group in the protected range (-max … -1)
    bpf.label('pids'),
    bpf.jeq(EVERY_PROCESS, 'deny'),
    ...(max ? [bpf.jgt(max, 'pid-list'), bpf.jge(1, 'deny', 'allow')] : []), // 1 … max
    bpf.label('pid-list'),
    ...pids.map((pid) => bpf.jeq(pid, 'deny')),
    bpf.label('allow'),
    bpf.ret(SECCOMP_RET_ALLOW),
    bpf.label('deny'),
    bpf.ret(SECCOMP_RET_ERRNO | SECCOMP_EPERM),
  ];
  return bpfAssemble(lines);
}
