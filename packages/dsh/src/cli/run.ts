/**
 * `dsh run -- COMMAND…`: one command through the whole stack (CLI → bash tool → ctx.shell →
 * ctx.subprocess), printed as the rendered result; exits with the command's status.
 */
import type { SandboxMode } from '@dsh/sandbox';
import { DEFAULT_SESSION_ROOT } from '../log/session-log.js';
import { exitStatusOf, signalStatus } from './exit-codes.js';
import { progressLine } from './progress-line.js';
import { composeLayered } from './serve.js';

/** How `dsh run` names the bash tool's arguments in notes: its own flags. */
export const RUN_ARG_NAMES = { timeout_ms: '--timeout', workdir: '--workdir', run_in_background: null } as const;

/** Signals that end `dsh run`: the first aborts the command (its tree is ended), a second ends everything now. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Options of `dsh run`. */
export interface RunOptions {
  timeout?: number;
  workdir?: string;
  json?: boolean;
  sandbox?: SandboxMode;
  logDir?: string;
  /** commander's `--no-log`. */
  log?: boolean;
  /** `--connect`: the channel argv of a remote world. */
  connect?: string[];
  /** `--config FILE`. */
  config?: string;
  /** `--allow-host NAME` (repeatable). */
  allowHost?: string[];
  /** `--remote-node PATH`, `--joins-argv`: with --connect. */
  remoteNode?: string;
  joinsArgv?: boolean;
}

/** Runs the command; resolves to the exit status. */
export async function runCommand(words: string[], options: RunOptions): Promise<number> {
  const dsh = await composeLayered(
    'base',
    {
      sandbox: { mode: 'danger-full-access' },
      // One command: it is born inside its cgroup, so a kill -9 of dsh run at any moment ends it
      // too (with `auto`, what it forked before the move could outlive a host killed just then).
      subprocess: { containment: 'strict' },
      sessionLog: { dir: DEFAULT_SESSION_ROOT },
    },
    options,
  );
  const agent = dsh.createAgent('cli');
  const abort = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stoppedBy === null) {
      stoppedBy = signal;
      abort.abort();
      return;
    }
    void dsh.dispose().finally(() => process.exit(signalStatus(signal)));
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const line = options.json ? null : progressLine(process.stderr);
  try {
    const args: Record<string, unknown> = { command: words.join(' ') };
    if (options.timeout !== undefined) args.timeout_ms = options.timeout;
    if (options.workdir !== undefined) args.workdir = options.workdir;
    const result = await dsh.tools.call(agent, 'bash', args, {
      signal: abort.signal,
      argNames: RUN_ARG_NAMES,
      ...(line ? { progress: line.report } : {}),
    });
    line?.clear();
    if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else (result.isError ? process.stderr : process.stdout).write(`${result.text}\n`);
    const signal = stoppedBy as NodeJS.Signals | null;
    return signal ? signalStatus(signal) : exitStatusOf(result);
  } finally {
    line?.clear();
    await dsh.dispose();
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
}
