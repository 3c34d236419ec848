/**
 * A small classic-BPF assembler: the program format the kernel's seccomp (and socket) filters
 * run. One instruction is `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`, eight bytes
 * in the host's byte order (little-endian on every architecture dsh generates filters for).
 *
 * Jumps name labels; the assembler resolves them to the relative offsets the kernel wants and
 * refuses, with `SECCOMP_INVALID`, whatever the kernel would refuse or misread: a backward or
 * too-far jump, an unknown or repeated label, an empty or oversized program, a program that can
 * run off its end.
 */
import { DshError } from '@dsh/core';

/** Instruction class: load into the accumulator A. */
export const BPF_LD = 0x00;
/** Instruction class: arithmetic on A. */
export const BPF_ALU = 0x04;
/** Instruction class: jumps. */
export const BPF_JMP = 0x05;
/** Instruction class: return (the filter's verdict). */
export const BPF_RET = 0x06;
/** Load size: a 32-bit word. */
export const BPF_W = 0x00;
/** Load mode: from a fixed offset in the input (for seccomp, `struct seccomp_data`). */
export const BPF_ABS = 0x20;
/** ALU operation: A &= operand. */
export const BPF_AND = 0x50;
/** Jump operation: always, by `k` instructions. */
export const BPF_JA = 0x00;
/** Jump operation: A == operand. */
export const BPF_JEQ = 0x10;
/** Jump operation: A > operand (unsigned). */
export const BPF_JGT = 0x20;
/** Jump operation: A >= operand (unsigned). */
export const BPF_JGE = 0x30;
/** Jump operation: (A & operand) != 0. */
export const BPF_JSET = 0x40;
/** Operand source: the constant `k` (for BPF_RET: return `k`). */
export const BPF_K = 0x00;

/** Longest program the kernel accepts (BPF_MAXINSNS in linux/bpf_common.h). */
export const BPF_MAXINSNS = 4096;
/** Farthest a conditional jump reaches: jt and jf are one byte each. */
export const BPF_MAX_JUMP = 255;
/** Size of one encoded instruction (struct sock_filter). */
export const SOCK_FILTER_BYTES = 8;

/** The error code of every refusal of this assembler. */
export const SECCOMP_INVALID = 'SECCOMP_INVALID';

/** One decoded instruction, as the kernel reads it (jt/jf are offsets from the next instruction). */
export interface SockFilter {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

/**
 * One line of source: a label (names the position of the instruction after it) or an
 * instruction whose jump targets are label names. A conditional jump without `jt`/`jf` falls
 * through on that branch; `ja` is the target of an unconditional jump.
 */
export type BpfLine =
  | { readonly kind: 'label'; readonly name: string }
  | {
      readonly kind: 'insn';
      readonly code: number;
      readonly k: number;
      readonly jt?: string;
      readonly jf?: string;
      readonly ja?: string;
    };

const cond = (op: number, k: number, jt?: string, jf?: string): BpfLine => ({
  kind: 'insn',
  code: BPF_JMP | op | BPF_K,
  k,
  ...(jt === undefined ? {} : { jt }),
  ...(jf === undefined ? {} : { jf }),
});

/** Builders for the lines dsh's filters use. */
export const bpf = {
  /** Names the position of the next instruction. */
  label: (name: string): BpfLine => ({ kind: 'label', name }),
  /** A = the 32-bit word at byte `offset` of the input (BPF_LD|BPF_W|BPF_ABS). */
  ld: (offset: number): BpfLine => ({ kind: 'insn', code: BPF_LD | BPF_W | BPF_ABS, k: offset }),
  /** A &= k (BPF_ALU|BPF_AND|BPF_K). */
  and: (k: number): BpfLine => ({ kind: 'insn', code: BPF_ALU | BPF_AND | BPF_K, k }),
  /** If A == k go to `jt`, else to `jf` (either defaults to the next instruction). */
  jeq: (k: number, jt?: string, jf?: string): BpfLine => cond(BPF_JEQ, k, jt, jf),
  /** If A > k (unsigned) go to `jt`, else to `jf`. */
  jgt: (k: number, jt?: string, jf?: string): BpfLine => cond(BPF_JGT, k, jt, jf),
  /** If A >= k (unsigned) go to `jt`, else to `jf`. */
  jge: (k: number, jt?: string, jf?: string): BpfLine => cond(BPF_JGE, k, jt, jf),
  /** If A & k is not zero go to `jt`, else to `jf`. */
  jset: (k: number, jt?: string, jf?: string): BpfLine => cond(BPF_JSET, k, jt, jf),
  /** Go to `target` unconditionally (BPF_JMP|BPF_JA; the offset is held in k). */
  ja: (target: string): BpfLine => ({ kind: 'insn', code: BPF_JMP | BPF_JA, k: 0, ja: target }),
  /** End the program with verdict `k` (BPF_RET|BPF_K). */
  ret: (k: number): BpfLine => ({ kind: 'insn', code: BPF_RET | BPF_K, k }),
} as const;

const invalid = (message: string, data: Record<string, unknown>): DshError =>
  new DshError(SECCOMP_INVALID, message, { data });

const isU32 = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff;

/**
 * Resolves labels and encodes `lines` as the byte string the kernel loads (what bwrap's
 * `--seccomp FD` reads). Throws `SECCOMP_INVALID` for an empty program, one over
 * {@link BPF_MAXINSNS} instructions, one whose last instruction is not a return, a repeated or
 * unknown label, a jump that goes backward, past the end, or (conditional) farther than
 * {@link BPF_MAX_JUMP}, a target on an instruction that does not jump, and a `code` or `k` out
 * of its field's range.
 */
export function bpfAssemble(lines: readonly BpfLine[]): Buffer {
  const at = new Map<string, number>();
  let count = 0;
  for (const line of lines) {
    if (line.kind === 'insn') count += 1;
    else if (at.has(line.name)) throw invalid(`label "${line.name}" is defined twice`, { label: line.name });
    else at.set(line.name, count);
  }
  if (count === 0) throw invalid('a BPF program needs at least one instruction', { instructions: 0 });
  if (count > BPF_MAXINSNS) {
    throw invalid(`a BPF program holds at most ${BPF_MAXINSNS} instructions`, {
      instructions: count,
      limit: BPF_MAXINSNS,
    });
  }
  const out = Buffer.alloc(count * SOCK_FILTER_BYTES);
  let index = 0;
  for (const line of lines) {
    if (line.kind === 'label') continue;
    const offset = (target: string | undefined, limit: number): number => {
      if (target === undefined) return 0;
      const to = at.get(target);
      if (to === undefined) throw invalid(`jump to unknown label "${target}"`, { label: target, index });
      if (to >= count) throw invalid(`label "${target}" is past the last instruction`, { label: target, index });
      const distance = to - index - 1;
      if (distance < 0) throw invalid(`jump to "${target}" goes backward`, { label: target, index });
      if (distance > limit) {
        throw invalid(`jump to "${target}" is ${distance} instructions, over ${limit}`, {
          label: target,
          index,
          distance,
          limit,
        });
      }
      return distance;
    };
    if (!Number.isInteger(line.code) || line.code < 0 || line.code > 0xffff) {
      throw invalid('instruction code is not a 16-bit value', { index, code: line.code });
    }
    if (!isU32(line.k)) throw invalid('instruction k is not a 32-bit unsigned value', { index, k: line.k });
    const isJump = (line.code & 0x07) === BPF_JMP;
    const isJa = isJump && (line.code & 0xf0) === BPF_JA;
    if ((!isJump || isJa) && (line.jt !== undefined || line.jf !== undefined)) {
      throw invalid('jt/jf on an instruction that is not a conditional jump', { index });
    }
    if (!isJa && line.ja !== undefined) throw invalid('ja target on an instruction that is not BPF_JA', { index });
    const k = isJa ? offset(line.ja, BPF_MAXINSNS) : line.k;
    const base = index * SOCK_FILTER_BYTES;
    out.writeUInt16LE(line.code, base);
    out.writeUInt8(offset(line.jt, BPF_MAX_JUMP), base + 2);
    out.writeUInt8(offset(line.jf, BPF_MAX_JUMP), base + 3);
    out.writeUInt32LE(k, base + 4);
    index += 1;
  }
  if ((out.readUInt16LE(out.length - SOCK_FILTER_BYTES) & 0x07) !== BPF_RET) {
    throw invalid('the last instruction must be a return', { instructions: count });
  }
  return out;
}

/** Decodes an assembled program back into instructions (for review, tests and tooling). */
export function bpfDecode(program: Buffer): SockFilter[] {
  if (program.length % SOCK_FILTER_BYTES !== 0) {
    throw invalid('a BPF program is a whole number of 8-byte instructions', { bytes: program.length });
  }
  const insns: SockFilter[] = [];
  for (let base = 0; base < program.length; base += SOCK_FILTER_BYTES) {
    insns.push({
      code: program.readUInt16LE(base),
      jt: program.readUInt8(base + 2),
      jf: program.readUInt8(base + 3),
      k: program.readUInt32LE(base + 4),
    });
  }
  return insns;
}
