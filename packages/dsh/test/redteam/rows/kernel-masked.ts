/**
 * Kernel files a world must not read (Docker masks them) or trigger: /proc/kcore, /proc/keys,
 * /proc/timer_list, /proc/sched_debug, /sys/firmware, /proc/sysrq-trigger. A read counts as
 * through when the output carries what the host itself reads there (a digest of it, or a key
 * the host planted); a trigger when the host's kernel log shows it.
 */
import { existsSync } from 'node:fs';
import type { Host } from '../harness/host.js';
import { sha256 } from '../harness/knobs.js';
import type { Row } from './types.js';

interface ReadRow {
  id: string;
  title: string;
  /** Bash (as the row's user, on the host and in the fence) printing a digest of the target. */
  digest: string;
  /** Paths that must exist for the row to be armed. */
  needs: string[];
}

/** Through when the confined output holds the digest the host computed of the same bytes. */
function digestRow(r: ReadRow): Row {
  return {
    id: r.id,
    klass: 'kernel',
    title: r.title,
    proof: "the digest of the host's own read appears in the output",
    async arm(host) {
      const missing = r.needs.filter((p) => !existsSync(p));
      if (missing.length > 0) return `${missing.join(', ')} does not exist on this kernel`;
      const out = await host.sh(`set -o pipefail; ${r.digest}`);
      const digest = out.stdout.match(/^[0-9a-f]{64}/)?.[0];
      if (out.code !== 0 || !digest) return `${host.user.name} cannot read it on the host (${out.stderr.trim()})`;
      if (digest === sha256('')) return `it reads empty on the host`;
      host.facts.digest = digest;
      return null;
    },
    command: () => r.digest,
    judge(host, attempt) {
      const failed = attempt.text.includes(host.facts.digest as string);
      return {
        failed,
        evidence: failed ? 'the host’s digest is in the output' : 'the host’s digest is not in the output',
      };
    },
  };
}

const keysRow: Row = {
  id: 'proc-keys',
  klass: 'kernel',
  title: "read /proc/keys (the user's keyrings, as the host lists them)",
  proof: 'a key the host added to the user keyring appears in the output',
  async arm(host) {
    if (!existsSync('/proc/keys')) return '/proc/keys does not exist on this kernel';
    const added = await host.sh(`python3 ${host.bundle.probe} addkey ${host.tag}`);
    const id = added.stdout.match(/add_key: (\d+) ok/)?.[1];
    if (!id) return `${host.user.name} cannot add a key on the host (${added.stdout.trim()} ${added.stderr.trim()})`;
    host.defer(() => host.sh(`python3 ${host.bundle.probe} dropkey ${id}`));
    const listed = await host.sh(`grep -c ${host.tag} /proc/keys`);
    return listed.stdout.trim() === '1' ? null : `the key is not listed in /proc/keys on the host`;
  },
  command: () => 'cat /proc/keys',
  judge(host, attempt) {
    const failed = attempt.text.includes(host.tag);
    return {
      failed,
      evidence: failed ? 'the planted key is listed in the output' : 'the planted key is not in the output',
    };
  },
};

const sysrqRow: Row = {
  id: 'proc-sysrq-trigger',
  klass: 'kernel',
  title: 'trigger a magic SysRq (h: help) through /proc/sysrq-trigger',
  proof: "a new 'sysrq: HELP' line in the host's kernel log",
  lock: '/proc/sysrq-trigger',
  async arm(host) {
    if (!existsSync('/proc/sysrq-trigger')) return '/proc/sysrq-trigger does not exist on this kernel';
    const before = await countHelp(host);
    const w = await host.sh('echo h > /proc/sysrq-trigger');
    if (w.code !== 0) return `${host.user.name} cannot write /proc/sysrq-trigger on the host (${w.stderr.trim()})`;
    const after = await countHelp(host);
    if (!(after > before)) return 'the kernel log does not show SysRq help on the host';
    host.facts.count = after;
    return null;
  },
  command: () => 'echo h > /proc/sysrq-trigger',
  async judge(host) {
    const now = await countHelp(host);
    return {
      failed: now > (host.facts.count as number),
      evidence: `sysrq help lines in the host's kernel log: ${now}`,
    };
  },
};

async function countHelp(host: Host): Promise<number> {
  const out = await host.sh('dmesg | grep -c "sysrq: HELP"', { root: true });
  return Number(out.stdout.trim()) || 0;
}

export const kernelMaskedRows: Row[] = [
  sysrqRow,
  digestRow({
    id: 'proc-kcore',
    title: "read the kernel's memory image /proc/kcore",
    digest: 'head -c 4096 /proc/kcore | sha256sum',
    needs: ['/proc/kcore'],
  }),
  keysRow,
  digestRow({
    id: 'proc-timer-list',
    title: 'read /proc/timer_list',
    digest: 'head -n 2 /proc/timer_list | sha256sum',
    needs: ['/proc/timer_list'],
  }),
  digestRow({
    id: 'proc-sched-debug',
    title: 'read /proc/sched_debug',
    digest: 'head -n 2 /proc/sched_debug | sha256sum',
    needs: ['/proc/sched_debug'],
  }),
  digestRow({
    id: 'sys-firmware-acpi',
    title: "read the firmware's ACPI tables under /sys/firmware",
    digest: 'cat /sys/firmware/acpi/tables/DSDT | sha256sum',
    needs: ['/sys/firmware/acpi/tables/DSDT'],
  }),
  digestRow({
    id: 'sys-firmware-memmap',
    title: "read the firmware's memory map under /sys/firmware",
    digest: 'cat /sys/firmware/memmap/*/start /sys/firmware/memmap/*/end /sys/firmware/memmap/*/type | sha256sum',
    needs: ['/sys/firmware/memmap'],
  }),
];
