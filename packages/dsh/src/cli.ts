/**
 * The `dsh` command line: `dsh run [--timeout MS] [--workdir DIR] [--json] -- COMMAND…` runs one
 * command through the whole stack; `dsh --dump-config` prints the composition.
 */
import { constants } from 'node:os';
import { SANDBOX_MODES, type SandboxMode } from '@dsh/sandbox';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { compose } from './compose.js';

/** Exit status for a timeout, as coreutils' `timeout` uses. */
export const EXIT_TIMEOUT = 124;
/** Exit status when the command could not start (like a shell's "not found"). */
export const EXIT_START_FAILED = 127;
/** Exit status for bad usage. */
export const EXIT_USAGE = 2;
/** Exit statuses of signals are 128 + the signal number, as shells report them. */
export const EXIT_SIGNAL_BASE = 128;

/** The exit status `dsh run` reports for a bash tool result's facts. */
export function exitStatusOf(result: { isError: boolean; data: Record<string, unknown> }): number {
  const d = result.data;
  if (d.timed_out === true) return EXIT_TIMEOUT;
  if (typeof d.exit_code === 'number') return d.exit_code;
  if (typeof d.signal === 'string') {
    const n = (constants.signals as Record<string, number>)[d.signal];
    return EXIT_SIGNAL_BASE + (n ?? 0);
  }
  if (d.start_error) return EXIT_START_FAILED;
  return result.isError ? EXIT_USAGE : 1;
}

function sandboxMode(value: string): SandboxMode {
  if (!(SANDBOX_MODES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${SANDBOX_MODES.join(', ')}`);
  }
  return value as SandboxMode;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError('expected a positive integer number of milliseconds');
  }
  return n;
}

/** Signals that end `dsh run`: the first aborts the command (its tree is ended), a second ends everything now. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function run(
  words: string[],
  options: { timeout?: number; workdir?: string; json?: boolean; sandbox?: SandboxMode },
): Promise<number> {
  const dsh = await compose({ preset: 'base', config: { sandbox: { mode: options.sandbox ?? 'danger-full-access' } } });
  const agent = dsh.createAgent('cli');
  const abort = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stoppedBy === null) {
      stoppedBy = signal;
      abort.abort();
      return;
    }
    void dsh.dispose().finally(() => process.exit(EXIT_SIGNAL_BASE + (constants.signals[signal] ?? 0)));
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  try {
    const args: Record<string, unknown> = { command: words.join(' ') };
    if (options.timeout !== undefined) args.timeout_ms = options.timeout;
    if (options.workdir !== undefined) args.workdir = options.workdir;
    const result = await dsh.tools.call(agent, 'bash', args, { signal: abort.signal });
    if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else (result.isError ? process.stderr : process.stdout).write(`${result.text}\n`);
    const signal = stoppedBy as NodeJS.Signals | null;
    return signal ? EXIT_SIGNAL_BASE + (constants.signals[signal] ?? 0) : exitStatusOf(result);
  } finally {
    await dsh.dispose();
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
}

async function dumpConfig(): Promise<number> {
  const dsh = await compose({ preset: 'base' });
  try {
    process.stdout.write(`${JSON.stringify(dsh.dumpConfig(), null, 2)}\n`);
    return 0;
  } finally {
    await dsh.dispose();
  }
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit status. */
export async function main(argv: string[]): Promise<number> {
  let status = 0;
  const program = new Command('dsh')
    .description('dsh: the command-execution stack for AI agents')
    .option('--dump-config', 'print the composition (plugins, services, tools, resolved config) as JSON')
    .exitOverride()
    .action(async (opts: { dumpConfig?: boolean }) => {
      if (opts.dumpConfig) status = await dumpConfig();
      else {
        program.outputHelp();
        status = EXIT_USAGE;
      }
    });
  program
    .command('run')
    .description('run one bash command through the whole stack and print the rendered result')
    .argument('<command...>', 'the command (put it after --); words are joined with spaces and run by bash -c')
    .option('--timeout <ms>', 'kill the command after this many milliseconds', positiveInt)
    .option('--workdir <dir>', 'working directory (relative to the current directory)')
    .option('--json', 'print the result as JSON ({ text, isError, data })')
    .option(
      '--sandbox <mode>',
      'read-only, workspace-write (the current directory) or danger-full-access',
      sandboxMode,
      'danger-full-access',
    )
    .action(
      async (words: string[], opts: { timeout?: number; workdir?: string; json?: boolean; sandbox?: SandboxMode }) => {
        status = await run(words, opts);
      },
    );
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    throw error;
  }
  return status;
}
