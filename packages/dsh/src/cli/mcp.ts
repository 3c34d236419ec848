/**
 * `dsh mcp`: serves a preset over MCP stdio. stdout carries nothing but protocol; stderr gets
 * one start-up line (preset, workspace, sandbox mode, whether a fence exists and the fix when
 * not). stdin EOF, SIGTERM, SIGINT and SIGHUP dispose the composition — every process, job and
 * PTY ended and joined — and the process exits within the grace period plus
 * {@link SHUTDOWN_MARGIN_MS}.
 */
import { DEFAULT_YIELD_MS, serveMcp } from '@dsh/mcp';
import type { SandboxMode } from '@dsh/sandbox';
import { compose } from '../compose.js';
import { DEFAULT_SESSION_ROOT } from '../log/session-log.js';
import type { PresetName } from '../presets.js';
import { DSH_VERSION } from '../version.js';
import { signalStatus } from './exit-codes.js';

/** Past the composition's grace, shutdown gets this long before the process exits regardless. */
export const SHUTDOWN_MARGIN_MS = 2_000;

/** Options of `dsh mcp`. */
export interface McpOptions {
  preset?: PresetName;
  workspace?: string;
  sandbox?: SandboxMode;
  network?: boolean;
  yieldMs?: number;
  logDir?: string;
  /** commander's `--no-log`. */
  log?: boolean;
  /** `--connect`: the channel argv of a remote world. */
  connect?: string[];
}

/** The start-up line on stderr. */
export function startLine(dump: Record<string, unknown>): string {
  const config = dump.config as { workspace: string; sessionLog: { dir: string } | null };
  const sandbox = dump.sandbox as { mode: string; fence: string | null; note: string; network: boolean };
  const fence =
    sandbox.mode === 'danger-full-access'
      ? 'unconfined'
      : sandbox.fence
        ? `confined by ${sandbox.fence}${sandbox.network ? ', network on' : ', no network'}`
        : `NO FENCE: ${sandbox.note}`;
  const log = config.sessionLog ? `session log ${config.sessionLog.dir}` : 'no session log';
  const world = dump.world as { kind: string; connect?: string[]; remote?: { hostname?: string } };
  const where = world.kind === 'remote' ? ` · world ${world.connect?.join(' ')} (${world.remote?.hostname})` : '';
  return `dsh mcp ${DSH_VERSION}: preset ${dump.preset}${where} · workspace ${config.workspace} · sandbox ${sandbox.mode} (${fence}) · ${log}\n`;
}

/** Serves until the client goes away or a signal comes; resolves to the exit status. */
export async function serveCommand(options: McpOptions): Promise<number> {
  const sessionLog = options.log === false ? undefined : { dir: options.logDir ?? DEFAULT_SESSION_ROOT };
  const dsh = await compose({
    preset: options.preset ?? 'full',
    config: {
      ...(options.workspace ? { workspace: options.workspace } : {}),
      sandbox: { mode: options.sandbox ?? 'workspace-write', network: options.network === true },
      ...(sessionLog ? { sessionLog } : {}),
      ...(options.connect ? { world: { kind: 'remote', connect: options.connect } } : {}),
    },
  });
  const dump = dsh.dumpConfig();
  process.stderr.write(startLine(dump));
  const server = serveMcp({
    host: dsh,
    yieldMs: options.yieldMs ?? DEFAULT_YIELD_MS,
    serverInfo: { name: 'dsh', version: DSH_VERSION },
  });
  const stopped = new Promise<NodeJS.Signals | null>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => resolve(signal);
    for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(s, onSignal);
    void server.closed.then(() => resolve(null));
  });
  const signal = await stopped;
  const graceMs = ((dump.config as { shell?: { graceMs?: number } }).shell?.graceMs ?? 1_000) + SHUTDOWN_MARGIN_MS;
  const status = signal ? signalStatus(signal) : 0;
  // Shutdown must not hang on anything: past the grace period the process exits regardless.
  setTimeout(() => process.exit(status), graceMs).unref();
  await server.close().catch(() => undefined);
  await dsh.dispose().catch(() => undefined);
  process.stdin.destroy(); // nothing more is read; an open stdin would keep the process alive
  return status;
}
