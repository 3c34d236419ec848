/**
 * Modes: read-only mode works with any workspace, one under the host's /tmp included (the world's
 * /tmp is its own, so the workspace must still be there inside).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Row } from './types.js';

export const modeRows: Row[] = [
  {
    id: 'modes-read-only-tmp-workspace',
    klass: 'modes',
    kind: 'promise',
    title: 'read-only mode with a workspace under /tmp reads the workspace',
    proof: 'a file the host wrote in the workspace is read back in the output',
    host: { workspaceUnderTmp: true },
    startMayFail: true,
    async arm(host) {
      host.facts.secret = randomBytes(8).toString('hex');
      host.write(join(host.ws, 'hello'), `${host.facts.secret}\n`, 0o644);
      const own = await host.sh('cat hello');
      return own.stdout.includes(host.facts.secret as string)
        ? null
        : `${host.user.name} cannot read the workspace on the host`;
    },
    command: () => 'cat hello',
    attempt: (host) => host.dshRun('cat hello', { mode: 'read-only' }),
    judge(host, attempt) {
      const works = !attempt.isError && attempt.text.includes(host.facts.secret as string);
      return { failed: !works, evidence: works ? 'the file was read' : `the call said: ${attempt.text.slice(0, 200)}` };
    },
  },
];
