import { readFileSync } from 'node:fs';
import {
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
import { ALLOW, ENOSYS, EPERM, KILL_PROCESS, runBpf } from './seccomp-support.js';

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
    // Signal routing: F_SETOWN to the machinery (or its group) and F_SETOWN_EX, FIOSETOWN, SIOCSPGRP.
    expect(run(nr.fcntl, 3n, 8n, 2n)).toBe(EPERM);
    expect(run(nr.fcntl, 3n, 8n, BigInt(-2 >>> 0))).toBe(EPERM);
    expect(run(nr.fcntl, 3n, 8n, 40n)).toBe(ALLOW);
    expect(run(nr.fcntl, 3n, 8n, 0n)).toBe(ALLOW);
    expect(run(nr.fcntl, 3n, 15n, 0n)).toBe(EPERM);
    expect(run(nr.fcntl, 3n, 1n, 0n)).toBe(ALLOW); // F_GETFD
    expect(run(nr.ioctl, 3n, 0x8901n)).toBe(EPERM);
    expect(run(nr.ioctl, 3n, 0x8902n)).toBe(EPERM);
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
        fc.constantFrom(
          0,
          0xffff_ffff,
          0x5412,
          0x541c,
          0x5401,
          0x8901,
          0x8902,
          0x80,
          0x400,
          0x1000_0000,
          0x2_0000,
          17,
          8,
          15,
        ),
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
      if (call === nr.ioctl) return [0x5412, 0x541c, 0x8901, 0x8902].includes(lo(1)) ? EPERM : ALLOW;
      if (call === nr.fcntl) {
        if (lo(1) === 15) return EPERM; // F_SETOWN_EX
        if (lo(1) !== 8) return ALLOW; // only F_SETOWN names an owner
        const owner = lo(2) | 0;
        return owner === -1 || pids.includes(owner) || pids.includes(-owner) ? EPERM : ALLOW;
      }
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
