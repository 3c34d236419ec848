/**
 * The `dsh` command line (commander): `run`, `mcp`, `web`, `log list|show`, `runtime serve`, `--version`, `--dump-config`.
 * Every subcommand resolves to an exit status; the table is in {@link EXIT_HELP}.
 */
import { isDshError } from '@dsh/core';
import { hostFacts, serveRuntimeStdio } from '@dsh/subprocess-remote';
import { Command, CommanderError, Option } from 'commander';
import { compose } from '../compose.js';
import type { PresetName } from '../presets.js';
import { DSH_VERSION } from '../version.js';
import { checkCommand, schemaCommand } from './config-command.js';
import { EXIT_HELP, EXIT_INTERNAL, EXIT_USAGE } from './exit-codes.js';
import { listCommand, showCommand } from './log.js';
import { type McpOptions, serveCommand } from './mcp.js';
import { connectArgv, directory, listenHost, portNumber, positiveInt, presetName, sandboxMode } from './options.js';
import { type RunOptions, runCommand } from './run.js';
import { type WebCliOptions, webCommand } from './web.js';

async function dumpConfig(preset: PresetName, connect: string[] | undefined): Promise<number> {
  const dsh = await compose({ preset, ...(connect ? { config: { world: { kind: 'remote', connect } } } : {}) });
  try {
    process.stdout.write(`${JSON.stringify(dsh.dumpConfig(), null, 2)}\n`);
    return 0;
  } finally {
    await dsh.dispose();
  }
}

/** `dsh --connect X run …` would run here: the world belongs after the subcommand. */
function misplacedConnect(program: Command): number | null {
  if (!program.opts<{ connect?: string[] }>().connect) return null;
  process.stderr.write('dsh: put --connect after the subcommand (dsh run --connect …, dsh mcp --connect …).\n');
  return EXIT_USAGE;
}

const connectOption = (): Option =>
  new Option(
    '--connect <command>',
    "run commands on another machine over this channel, e.g. 'ssh -T host', 'docker exec -i ctr', 'kubectl exec -i pod --' (Node.js 20+ needed there)",
  ).argParser(connectArgv);

const remoteNodeOption = (): Option =>
  new Option(
    '--remote-node <path>',
    'with --connect: the Node.js to run the runtime server with there (default: the first node on its PATH)',
  );
const JOINS_ARGV_HELP =
  "with --connect: the channel joins its command into one string for the remote user's shell, as ssh does (set it for ssh wrappers: autossh, gcloud compute ssh; default: only when the program is ssh)";

const configOption = (): Option =>
  new Option(
    '--config <file>',
    'the config file (default: $DSH_CONFIG, else ~/.config/dsh/config.json when it exists); flags override it',
  );

const logDirOption = (): Option =>
  new Option('--log-dir <dir>', 'session log root (default ~/.dsh/sessions)').argParser(directory);

/** The composition options `dsh mcp` and `dsh web` share (preset, workspace, sandbox, network). */
function servedOptions(command: Command): Command {
  return command
    .addOption(new Option('--preset <preset>', 'base, full or minimal').argParser(presetName).default('full'))
    .addOption(new Option('--workspace <dir>', 'workspace root (default: the current directory)').argParser(directory))
    .addOption(
      new Option(
        '--sandbox <mode>',
        "read-only, workspace-write or danger-full-access (default: the config file's, else workspace-write)",
      ).argParser(sandboxMode),
    )
    .addOption(configOption())
    .option(
      '--network',
      'let sandboxed commands reach the network: outbound through a network namespace of their own (pasta; as root), never the host loopback or /run sockets',
    )
    .addOption(allowHostOption());
}

/** `--allow-host NAME` (repeatable): network by name. */
const allowHostOption = (): Option =>
  new Option(
    '--allow-host <host>',
    "let sandboxed commands reach this host only through a proxy that checks every name (repeatable; *.example.com, host:port; added to the config file's sandbox.network.allow)",
  ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);

/** Runs the CLI with `argv` (without node and script); resolves to the exit status. */
export async function main(argv: string[]): Promise<number> {
  let status = 0;
  const program = new Command('dsh')
    .description('dsh: the command-execution stack for AI agents')
    .version(DSH_VERSION, '-V, --version', 'print the dsh version')
    .option('--dump-config', 'print the composition (plugins, services, tools, resolved config) as JSON')
    .addOption(
      new Option('--preset <preset>', 'preset for --dump-config (dsh mcp and dsh web take their own, default full)')
        .argParser(presetName)
        .default('base'),
    )
    .addOption(connectOption())
    .addHelpText('after', EXIT_HELP)
    .exitOverride()
    // Options after a subcommand are the subcommand's (`dsh run --connect …` is run's own).
    .enablePositionalOptions()
    .action(async (opts: { dumpConfig?: boolean; preset: PresetName; connect?: string[] }) => {
      if (opts.dumpConfig) status = await dumpConfig(opts.preset, opts.connect);
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
    .addOption(
      new Option(
        '--sandbox <mode>',
        "read-only, workspace-write (the current directory) or danger-full-access (default: the config file's, else danger-full-access)",
      ).argParser(sandboxMode),
    )
    .addOption(configOption())
    .addOption(allowHostOption())
    .addOption(logDirOption())
    .option('--no-log', 'keep no session log')
    .addOption(connectOption())
    .addOption(remoteNodeOption())
    .option('--joins-argv', JOINS_ARGV_HELP)
    .addHelpText('after', EXIT_HELP)
    .action(async (words: string[], opts: RunOptions) => {
      status = misplacedConnect(program) ?? (await runCommand(words, opts));
    });
  servedOptions(program.command('mcp'))
    .description('serve a preset over MCP stdio (one connection = one agent), or over HTTP with --http')
    .addOption(
      new Option('--yield-ms <ms>', 'a foreground bash still running after this long becomes a background job')
        .argParser(positiveInt)
        .default(45_000),
    )
    .addOption(logDirOption())
    .option('--no-log', 'keep no session log')
    .addOption(connectOption())
    .addOption(remoteNodeOption())
    .option('--joins-argv', JOINS_ARGV_HELP)
    .option('--web', 'also serve a page to watch this composition in a browser (read-only; the URL goes to stderr)')
    .addOption(new Option('--web-port <port>', 'port of that page (default: a free one)').argParser(portNumber))
    .addOption(new Option('--web-host <host>', 'address of that page (default 127.0.0.1)').argParser(listenHost))
    .option('--web-input', 'let the page type into terminals and run commands')
    .option(
      '--http',
      'serve MCP over Streamable HTTP instead of stdio (one session = one agent; the URL goes to stderr)',
    )
    .addOption(
      new Option('--host <host>', 'with --http: address to listen on (default 127.0.0.1)').argParser(listenHost),
    )
    .addOption(
      new Option('--port <port>', 'with --http: port to listen on (default: a free one)').argParser(portNumber),
    )
    .addOption(new Option('--token-file <file>', 'with --http: read the token every request must carry from this file'))
    .addOption(
      new Option(
        '--idle-ms <ms>',
        'with --http: end a session idle this long, and its processes (default 1800000)',
      ).argParser(positiveInt),
    )
    .addHelpText('after', EXIT_HELP)
    .action(async (opts: McpOptions) => {
      status = misplacedConnect(program) ?? (await serveCommand(opts));
    });
  servedOptions(program.command('web'))
    .description('serve a composition for a person in a browser: terminals, commands, jobs and the session log, live')
    .addOption(new Option('--port <port>', 'port to listen on (default: a free one)').argParser(portNumber))
    .addOption(
      new Option('--host <host>', 'address to listen on; anything but loopback lets other machines reach it')
        .argParser(listenHost)
        .default('127.0.0.1'),
    )
    .addOption(logDirOption())
    .option('--no-log', 'keep no session log')
    .addOption(connectOption())
    .addOption(remoteNodeOption())
    .option('--joins-argv', JOINS_ARGV_HELP)
    .option(
      '--dump-config',
      'print the composition it would serve (plugins, services, tools, config) as JSON, and exit',
    )
    .addHelpText('after', EXIT_HELP)
    .action(async (opts: WebCliOptions) => {
      status = misplacedConnect(program) ?? (await webCommand(opts));
    });
  const config = program.command('config').description('the config file the front doors read');
  config
    .command('schema')
    .description("print the config file's JSON Schema")
    .action(() => {
      status = schemaCommand();
    });
  config
    .command('check')
    .description('check a config file (default: the one dsh mcp, run and web would read here, and .dsh/config.json)')
    .argument('[file]', 'the file to check')
    .action((file: string | undefined) => {
      status = checkCommand(file);
    });
  const log = program.command('log').description('read session logs');
  log
    .command('list')
    .description('list the sessions, oldest first (by start)')
    .addOption(logDirOption())
    .action((opts: { logDir?: string }) => {
      status = listCommand(opts);
    });
  log
    .command('show')
    .description('print one session; facts are recovered from the rendered results')
    .argument('<session>', 'a session id (or its prefix), a session directory, or a log file')
    .option('--json', 'one JSON object per line, each with the recovered facts')
    .addOption(logDirOption())
    .action(async (target: string, opts: { logDir?: string; json?: boolean }) => {
      status = await showCommand(target, opts);
    });
  const runtime = program.command('runtime').description('the runtime server that execution worlds reach');
  runtime
    .command('serve')
    .description(
      "serve this machine's ctx.subprocess over stdin/stdout (the far end of a channel); exits when stdin ends",
    )
    .requiredOption('--stdio', 'speak the runtime protocol on stdin and stdout (the only transport)')
    .addOption(new Option('--containment <mode>', 'auto or session').choices(['auto', 'session']).default('auto'))
    .option('--probe-sandbox', 'say in hello whether bubblewrap works here')
    .action(async (opts: { containment: 'auto' | 'session'; probeSandbox?: boolean }) => {
      const info = hostFacts(process.argv[1] ?? '', opts.probeSandbox === true);
      await serveRuntimeStdio({ containment: opts.containment, info });
      status = 0;
    });
  for (const command of [...program.commands, ...log.commands, ...runtime.commands]) command.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (isDshError(error)) {
      process.stderr.write(`dsh: ${error.message}\n`);
      return error.code === 'INVALID_ARGUMENT' ? EXIT_USAGE : EXIT_INTERNAL;
    }
    throw error;
  }
  return status;
}
