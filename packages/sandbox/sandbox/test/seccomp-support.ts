/**
 * Shared by the seccomp tests: the seccomp return values, and a classic-BPF interpreter.
 */
import { AUDIT_ARCH_X86_64, bpfDecode } from '@dsh/sandbox';

export const BWRAP = '/usr/bin/bwrap';
export const ALLOW = 0x7fff_0000;
export const EPERM = 0x0005_0001;
export const ENOSYS = 0x0005_0026;
export const KILL_PROCESS = 0x8000_0000;

/** Runs a classic-BPF program over a seccomp_data record, the way the kernel does (the opcodes dsh emits). */
export function runBpf(program: Buffer, nr: number, args: readonly bigint[], arch = AUDIT_ARCH_X86_64): number {
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
