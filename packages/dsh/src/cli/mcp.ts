/**
 * `dsh mcp`: serves a preset over MCP stdio. stdout carries nothing but protocol; stderr gets
 * one start-up line (preset, workspace, sandbox mode, whether a fence exists and the fix when
 * not). stdin EOF, SIGTERM, SIGINT and SIGHUP dispose the composition — every process, job and
 * PTY ended and joined — and the process exits within the grace period plus
 * {@link SHUTDOWN_MARGIN_MS}. With `--web`, the same composition is shown in a browser
 * (read-only unless `--web-input`); that server stops when the MCP server does. With `--http`,
 * the same over Streamable HTTP (mcp-http.ts).
 */
import { DEFAULT_YIELD_MS, serveMcp } from '@dsh/mcp';
import { serveWeb, type WebServer } from '@dsh/web';
import type { Dsh } from '../compose.js';
import { DSH_VERSION } from '../version.js';
import { EXIT_USAGE, signalStatus } from './exit-codes.js';
import { type McpHttpCliOptions, readToken, serveHttp } from './mcp-http.js';
import { composeServed, fenceText, type ServedOptions, shutdownBudgetMs, untilStopped } from './serve.js';

export { SHUTDOWN_MARGIN_MS } from './serve.js';

/** Options of `dsh mcp`. */
export interface McpOptions extends ServedOptions, McpHttpCliOptions {
  /** `--http`: serve over Streamable HTTP instead of stdio. */
  http?: boolean;
  /** `--web`: also serve the page for this composition. */
  web?: boolean;
  /** `--web-port`. @default 0 (a free port) */
  webPort?: number;
  /** `--web-host`. @default 127.0.0.1 */
  webHost?: string;
  /** `--web-input`: the page may type into terminals and run commands. */
  webInput?: boolean;
}

/** The start-up line on stderr. */
export function startLine(dump: Record<string, unknown>): string {
  const config = dump.config as { workspace: string; sessionLog: { dir: string } | null };
  const log = config.sessionLog ? `session log ${config.sessionLog.dir}` : 'no session log';
  const world = dump.world as { kind: string; connect?: string[]; remote?: { hostname?: string } };
  const where = world.kind === 'remote' ? ` · world ${world.connect?.join(' ')} (${world.remote?.hostname})` : '';
  return `dsh mcp ${DSH_VERSION}: preset ${dump.preset}${where} · workspace ${config.workspace} · ${fenceText(dump)} · ${log}\n`;
}

async function startWeb(dsh: Dsh, options: McpOptions): Promise<WebServer | null> {
  if (!options.web) return null;
  const web = await serveWeb({
    host: dsh,
    port: options.webPort ?? 0,
    ...(options.webHost ? { hostname: options.webHost } : {}),
    input: options.webInput === true,
    title: 'dsh mcp',
  });
  process.stderr.write(
    `dsh mcp: watch in a browser (${options.webInput ? 'input allowed' : 'read-only'}): ${web.url}\n`,
  );
  return web;
}

/** Serves until the client goes away or a signal comes; resolves to the exit status. */
export async function serveCommand(options: McpOptions): Promise<number> {
  const httpOnly = (['host', 'port', 'tokenFile', 'idleMs'] as const).filter((k) => options[k] !== undefined);
  if (!options.http && httpOnly.length > 0) {
    process.stderr.write(`dsh mcp: --${httpOnly[0]?.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --http.\n`);
    return EXIT_USAGE;
  }
  if (options.http && options.web) {
    process.stderr.write('dsh mcp: --web serves stdio sessions only; run dsh web beside dsh mcp --http.\n');
    return EXIT_USAGE;
  }
  const token = options.http && options.tokenFile ? readToken(options.tokenFile) : undefined; // before anything starts
  const dsh = await composeServed(options, { preset: 'full' });
  const dump = dsh.dumpConfig();
  process.stderr.write(startLine(dump));
  if (options.http) {
    try {
      return await serveHttp(dsh, options, token);
    } catch (error) {
      await dsh.dispose().catch(() => undefined);
      throw error;
    }
  }
  let web: WebServer | null;
  try {
    web = await startWeb(dsh, options);
  } catch (error) {
    await dsh.dispose().catch(() => undefined);
    throw error;
  }
  const server = serveMcp({
    host: dsh,
    yieldMs: options.yieldMs ?? DEFAULT_YIELD_MS,
    serverInfo: { name: 'dsh', version: DSH_VERSION },
  });
  const signal = await untilStopped(server.closed);
  const status = signal ? signalStatus(signal) : 0;
  // Shutdown must not hang on anything: past the grace period the process exits regardless.
  setTimeout(() => process.exit(status), shutdownBudgetMs(dump)).unref();
  await web?.close().catch(() => undefined);
  await server.close().catch(() => undefined);
  await dsh.dispose().catch(() => undefined);
  process.stdin.destroy(); // nothing more is read; an open stdin would keep the process alive
  return status;
}
