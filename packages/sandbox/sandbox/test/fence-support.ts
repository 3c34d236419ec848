/**
 * Shared by the fence tests: real bubblewrap worlds on this machine, made in a temporary root and
 * all ended (with their host runtime) by `dispose`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BubblewrapSandbox, type SandboxPolicyOptions, SandboxPolicyService, type World } from '@dsh/sandbox';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';

/** Polls `check` (every 20 ms, up to 10 s). */
export async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!check()) throw new Error('timed out waiting');
}

/** A place to make worlds in. */
export interface FenceRig {
  root: string;
  workspace: string;
  host: LocalSubprocessRuntime;
  /** Keeps `sandbox` for `dispose`. */
  keep(sandbox: BubblewrapSandbox): BubblewrapSandbox;
  /** Runs `command` with bash in a world of `options`; what it printed and how it ended. */
  confined(
    command: string,
    options?: Partial<SandboxPolicyOptions>,
  ): Promise<{ exitCode: number | null; stdout: string; stderr: string; world: World }>;
  dispose(): Promise<void>;
}

/** Runs `command` with bash in `world` (cwd `cwd`); what it printed and how it ended. */
export async function runIn(
  world: World,
  command: string,
  cwd: string,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const h = world.runtime.spawn({
    argv: ['bash', '-c', command],
    cwd,
    env: {},
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1 << 20 },
    stderr: { kind: 'collect', maxBytes: 1 << 20 },
    graceMs: 500,
  });
  const done = await h.done;
  return {
    exitCode: done.exitCode,
    stdout: h.stdoutReader?.read(0).text ?? '',
    stderr: h.stderrReader?.read(0).text ?? '',
  };
}

export function fenceRig(prefix: string): FenceRig {
  const root = mkdtempSync(`/var/tmp/${prefix}`);
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  const host = new LocalSubprocessRuntime({ containment: 'strict' });
  const sandboxes: BubblewrapSandbox[] = [];
  const keep = (sandbox: BubblewrapSandbox): BubblewrapSandbox => {
    sandboxes.push(sandbox);
    return sandbox;
  };
  return {
    root,
    workspace,
    host,
    keep,
    async confined(command, options = {}) {
      const policy = new SandboxPolicyService({ workspace, ...options });
      const world = keep(new BubblewrapSandbox({})).world(policy.resolve(), host);
      return { ...(await runIn(world, command, workspace)), world };
    },
    async dispose() {
      await Promise.all(sandboxes.map((s) => s.dispose()));
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
