/**
 * The host's own view of a syscall's answer: strace, run as root on the host, attached to a
 * probe (found by its tag) while it waits at the live protocol's `ready`. A seccomp denial, a
 * missing capability and a missing syscall all show there as the kernel's return value.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from './host.js';
import { tagged, tracerOf } from './proc.js';
import { poll } from './spawn.js';

/** One traced syscall's answer. */
export interface Traced {
  name: string;
  ret: number;
  /** The errno name when it failed (EPERM…), else null. */
  errno: string | null;
}

/** Where strace lives on Debian. */
const STRACE = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p)) ?? null;

/** Null when strace is there; else why the row cannot be armed. */
export function straceMissing(): string | null {
  return STRACE ? null : 'strace is not installed on the host (Debian: apt-get install strace)';
}

/**
 * Sets the host's `ready` hook: strace attaches to the tagged probe for `syscalls`; the answers
 * are read by {@link traced} once the probe has ended.
 */
export function traceAtReady(host: Host, syscalls: string[], file = join(host.root, `trace-${Date.now()}`)): void {
  host.hooks = {
    ...host.hooks,
    async ready() {
      const [pid] = tagged(host.tag);
      if (pid === undefined || !STRACE) throw new Error('no tagged probe to trace');
      const child = spawn(
        STRACE,
        ['-qq', '-e', `trace=${syscalls.join(',')}`, '-e', 'signal=none', '-o', file, '-p', String(pid)],
        {
          stdio: 'ignore',
        },
      );
      const exited = new Promise<void>((r) => child.once('close', () => r()));
      host.defer(async () => {
        child.kill('SIGKILL');
        await exited;
      });
      host.facts.trace = { file, exited };
      const attached = await poll(() => tracerOf(pid) === child.pid, 10_000);
      if (!attached) throw new Error(`strace did not attach to ${pid}`);
    },
  };
}

/** The syscalls strace saw (empty when it never attached), once it ended (bounded). */
export async function traced(host: Host): Promise<Traced[]> {
  const trace = host.facts.trace as { file: string; exited: Promise<void> } | undefined;
  if (!trace) return [];
  await Promise.race([trace.exited, new Promise((r) => setTimeout(r, 10_000))]);
  let text = '';
  try {
    text = readFileSync(trace.file, 'utf8');
  } catch {
    return [];
  }
  const out: Traced[] = [];
  for (const m of text.matchAll(/^(\w+)\(.*\)\s+=\s+(-?\d+|0x[0-9a-f]+)(?:\s+(E[A-Z0-9]+))?/gm)) {
    out.push({ name: m[1] as string, ret: Number(m[2]), errno: m[3] ?? null });
  }
  return out;
}

/** One line for the evidence: what the host's strace saw. */
export function describe(calls: Traced[]): string {
  if (calls.length === 0) return "the host's strace saw no answer";
  return `the host's strace saw ${calls.map((c) => `${c.name} = ${c.ret}${c.errno ? ` ${c.errno}` : ''}`).join(', ')}`;
}
