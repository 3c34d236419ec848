/**
 * Syscalls whose only trace is their answer (kexec, modules, reboot, acct, swapon, keys,
 * another process's memory): the host's strace of the probe reads that answer. Each attempt is
 * harmless even when it gets through (an unload of no kexec image, a module that is not there,
 * a wrong reboot magic, files that do not exist); getting past the permission check is the
 * breach. Armed where the same probe, unconfined on the host, gets past it.
 */
import { join } from 'node:path';
import type { Host } from '../harness/host.js';
import { describe, straceMissing, type Traced, traceAtReady, traced } from '../harness/tracer.js';
import type { Row } from './types.js';

interface ErrnoRow {
  id: string;
  title: string;
  /** The probe's kind (probe.py errno KIND). */
  kind: string;
  /** What strace traces. */
  syscalls: string[];
  /** True when an answer shows the call got past the kernel's permission check. */
  passed(call: Traced): boolean;
}

const succeeded = (c: Traced): boolean => c.ret >= 0;
/** Past the permission check: any answer but EPERM (and ENOSYS, no such call here). */
const pastPermission = (c: Traced): boolean => c.ret >= 0 || (c.errno !== 'EPERM' && c.errno !== 'ENOSYS');

function command(host: Host, kind: string): string {
  return `${host.live()}${host.probe('errno', kind, host.tag)}`;
}

function errnoRow(r: ErrnoRow): Row {
  return {
    id: r.id,
    klass: 'syscall',
    title: r.title,
    proof: "the host's strace of the probe: the kernel's answer",
    marker: 'syscall',
    async arm(host) {
      const missing = straceMissing();
      if (missing) return missing;
      traceAtReady(host, r.syscalls, join(host.root, 'trace-arm'));
      await host.shLive(command(host, r.kind));
      const calls = await traced(host);
      delete host.facts.trace;
      if (calls.some((c) => c.errno === 'ENOSYS')) return `${describe(calls)}: this kernel has no such syscall`;
      if (!calls.some(r.passed)) return `unconfined on the host ${describe(calls)}`;
      traceAtReady(host, r.syscalls, join(host.root, 'trace-attempt'));
      return null;
    },
    command: (host) => command(host, r.kind),
    async judge(host) {
      const calls = await traced(host);
      return { failed: calls.some(r.passed), evidence: describe(calls) };
    },
  };
}

export const errnoRows: Row[] = [
  errnoRow({
    id: 'syscall-kexec-load',
    title: 'kexec_load (unload: no image given)',
    kind: 'kexec',
    syscalls: ['kexec_load'],
    passed: succeeded,
  }),
  errnoRow({
    id: 'syscall-init-module',
    title: 'init_module with a garbage image',
    kind: 'init_module',
    syscalls: ['init_module'],
    passed: pastPermission,
  }),
  errnoRow({
    id: 'syscall-delete-module',
    title: 'delete_module of a module that is not loaded',
    kind: 'delete_module',
    syscalls: ['delete_module'],
    passed: pastPermission,
  }),
  errnoRow({
    id: 'syscall-reboot',
    title: 'reboot with a wrong magic',
    kind: 'reboot',
    syscalls: ['reboot'],
    passed: pastPermission,
  }),
  errnoRow({
    id: 'syscall-acct',
    title: 'acct (process accounting) to a missing file',
    kind: 'acct',
    syscalls: ['acct'],
    passed: pastPermission,
  }),
  errnoRow({
    id: 'syscall-swapon',
    title: 'swapon of a missing file',
    kind: 'swapon',
    syscalls: ['swapon'],
    passed: pastPermission,
  }),
  errnoRow({
    id: 'syscall-keyctl',
    title: 'add_key and keyctl (the kernel keyrings)',
    kind: 'keyctl',
    syscalls: ['add_key', 'keyctl'],
    passed: succeeded,
  }),
  errnoRow({
    id: 'syscall-process-vm-readv',
    title: "process_vm_readv of a child's memory",
    kind: 'process_vm_readv',
    syscalls: ['process_vm_readv'],
    passed: (c) => c.ret > 0,
  }),
];
