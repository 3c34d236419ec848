/**
 * TIOCSTI: typing into the terminal dsh runs on, so that the person's shell runs it after dsh
 * exits. dsh runs on a fresh terminal of the host's (ptyrun.py, its controlling terminal); the
 * probe pushes text into every terminal it can reach; the host reads that terminal's pending
 * input afterwards. Armed where the probe, run on such a terminal unconfined, can push.
 */
import { join } from 'node:path';
import type { Host } from '../harness/host.js';
import { collect, start, userArgv } from '../harness/spawn.js';
import { ROOT } from '../harness/users.js';
import type { Row } from './types.js';

const command = (host: Host): string => `python3 ${host.bundle.probe} tiocsti y${host.nonce} scan`;

export const ttyRows: Row[] = [
  {
    id: 'syscall-tiocsti',
    klass: 'syscall',
    title: "TIOCSTI into the terminal dsh runs on (and any terminal the world's processes hold)",
    proof: "the pushed text in the host terminal's pending input",
    marker: 'syscall',
    async arm(host) {
      const pending = join(host.root, 'pending-arm');
      const probe = userArgv(host.user, host.baseEnv(), ['python3', host.bundle.probe, 'tiocsti', `x${host.nonce}`]);
      const out = await collect(
        start(['python3', host.bundle.ptyrun, pending, `${pending}.stdout`, ...probe], {
          ...host.launch(),
          user: ROOT,
        }),
        30_000,
      );
      const pushed = host.read(pending) ?? '';
      if (!pushed.includes(`x${host.nonce}`)) {
        return `unconfined on a terminal of its own the push did not land (${out.stderr.trim()} ${host.read(`${pending}.stdout`)?.trim()})`;
      }
      return null;
    },
    command,
    attempt: (host) => host.dshRun(command(host), { ptyPending: join(host.root, 'pending') }),
    judge(host) {
      const pending = host.read(join(host.root, 'pending')) ?? '';
      const failed = pending.includes(`y${host.nonce}`);
      return {
        failed,
        evidence: failed
          ? 'the text is pending on the host terminal'
          : `pending input: ${JSON.stringify(pending.slice(0, 80))}`,
      };
    },
  },
];
