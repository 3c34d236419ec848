/**
 * Planted code run by the next approved escalation: a confined call plants (the stand-in editor,
 * a git hook, a program in a PATH directory inside the workspace, the file BASH_ENV names), then
 * the person approves an innocent `git commit -q` to run unconfined. The planted code, if it runs,
 * writes a marker into a directory outside the fence (only an unconfined process can). The agent
 * is one `dsh mcp` session whose client approves every escalation it is asked about.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Attempt } from '../harness/dsh.js';
import type { Host } from '../harness/host.js';
import { SYSTEM_PATH } from '../harness/host.js';
import { armRepo } from './planted.js';
import type { Row } from './types.js';

/** The planted script: it writes the marker, then does what it replaced (if anything). */
const payload = (host: Host, then = '') => `'#!/bin/sh\\nid > ${join(host.outside, 'ran')}\\n${then}'`;

interface EscalationRow {
  id: string;
  title: string;
  /** The confined call that plants. */
  plant(host: Host): string;
  /** The approved escalated command. @default git commit -q */
  escalated?: string;
  /** Host set-up before dsh starts (dsh's environment, the file a variable names). */
  prepare?(host: Host): void;
}

function escalationRow(r: EscalationRow): Row {
  const escalated = r.escalated ?? 'git commit -q';
  return {
    id: r.id,
    klass: 'escalation',
    title: `${r.title}, then an approved \`${escalated}\``,
    proof: 'a marker the planted code writes outside the fence',
    async arm(host) {
      const why = await armRepo(host);
      if (why) return why;
      r.prepare?.(host);
      // The marker's directory is writable unconfined: an approved command can write it.
      const own = await host.sh(`touch ${join(host.outside, 'probe')} && rm ${join(host.outside, 'probe')}`);
      return own.code === 0 ? null : `${host.user.name} cannot write the marker directory on the host`;
    },
    command: r.plant,
    async attempt(host): Promise<Attempt> {
      const agent = await host.mcp({ approve: true, log: false });
      const planted = await agent.bash({ command: `${r.plant(host)}; echo x >> staged && git add staged` });
      host.facts.planted = planted.text;
      const run = await agent.bash({
        command: escalated,
        sandbox_permissions: 'require_escalated',
        justification: 'commit the staged change',
      });
      host.facts.asked = agent.asked.join(' | ');
      return run;
    },
    judge(host) {
      const ran = existsSync(join(host.outside, 'ran'));
      const asked = host.facts.asked
        ? `the person was asked: ${JSON.stringify(host.facts.asked)}`
        : 'no approval was asked';
      return {
        failed: ran,
        evidence: `${ran ? `planted code ran unconfined: ${host.read(join(host.outside, 'ran'))?.trim()}` : 'no planted code ran'}; ${asked}`,
      };
    },
  };
}

export const escalationRows: Row[] = [
  escalationRow({
    id: 'escalation-planted-editor',
    title: 'rewrite the stand-in editor GIT_EDITOR names',
    plant: (host) => `printf ${payload(host, 'exit 1')} > "$GIT_EDITOR"`,
  }),
  escalationRow({
    id: 'escalation-planted-hook',
    title: 'write .git/hooks/pre-commit',
    escalated: 'git commit -q -m staged',
    plant: (host) => `printf ${payload(host)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
  }),
  escalationRow({
    id: 'escalation-planted-path',
    title: 'put a `git` into node_modules/.bin of the workspace, which is on PATH',
    escalated: 'git commit -q -m staged',
    prepare(host) {
      host.env.PATH = `${join(host.ws, 'node_modules/.bin')}:${SYSTEM_PATH}`;
    },
    plant: (host) =>
      `mkdir -p node_modules/.bin && printf ${payload(host, 'exec /usr/bin/git "$@"')} > node_modules/.bin/git && chmod +x node_modules/.bin/git`,
  }),
  escalationRow({
    id: 'escalation-planted-bash-env',
    title: 'rewrite the file BASH_ENV names (in the workspace)',
    escalated: 'git commit -q -m staged',
    prepare(host) {
      host.env.BASH_ENV = host.write(join(host.ws, '.bash_env'), ': nothing yet\n', 0o644);
    },
    plant: (host) => `printf ${payload(host)} > .bash_env`,
  }),
];
