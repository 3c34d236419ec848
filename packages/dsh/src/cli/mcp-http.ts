/**
 * `dsh mcp --http`: the same composition served over MCP Streamable HTTP. One line on stderr
 * names the endpoint: the URL with the token in its path (for clients that take only a URL), and
 * the endpoint with the token to send as `Authorization: Bearer` (read from `--token-file`, or
 * made at start and printed). Listening beyond loopback prints a warning. A signal ends every
 * session (each agent's processes) and the composition.
 */
import { readFileSync } from 'node:fs';
import { DshError, isLoopback } from '@dsh/core';
import { DEFAULT_YIELD_MS, MCP_HTTP_TOKEN_PATTERN, serveMcpHttp } from '@dsh/mcp';
import type { Dsh } from '../compose.js';
import { DSH_VERSION } from '../version.js';
import { signalStatus } from './exit-codes.js';
import { shutdownBudgetMs, untilStopped } from './serve.js';

/** The `--http` options of `dsh mcp`. */
export interface McpHttpCliOptions {
  host?: string;
  port?: number;
  tokenFile?: string;
  idleMs?: number;
  yieldMs?: number;
}

/** Longest token file read (a token is one short line). */
const TOKEN_FILE_MAX_BYTES = 4096;

/**
 * The token in `file` (its first line, trimmed).
 * @throws DshError `INVALID_ARGUMENT` when it cannot be read or is not a usable token.
 */
export function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').slice(0, TOKEN_FILE_MAX_BYTES);
  } catch (error) {
    throw new DshError('INVALID_ARGUMENT', `--token-file ${file} cannot be read (${(error as Error).message}).`, {
      data: { field: 'tokenFile' },
    });
  }
  const token = (text.split('\n')[0] ?? '').trim();
  if (!MCP_HTTP_TOKEN_PATTERN.test(token)) {
    throw new DshError(
      'INVALID_ARGUMENT',
      `--token-file ${file}: the token must be one line of at least 16 URL-safe characters (letters, digits, . _ ~ -).`,
      { data: { field: 'tokenFile' } },
    );
  }
  return token;
}

/** Serves `dsh` over HTTP until a signal; resolves to the exit status. */
export async function serveHttp(dsh: Dsh, options: McpHttpCliOptions, token?: string): Promise<number> {
  const listenHost = options.host ?? '127.0.0.1';
  const server = await serveMcpHttp({
    host: dsh,
    listenHost,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(token ? { token } : {}),
    ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
    yieldMs: options.yieldMs ?? DEFAULT_YIELD_MS,
    serverInfo: { name: 'dsh', version: DSH_VERSION },
  });
  if (!isLoopback(listenHost)) {
    process.stderr.write(
      `dsh mcp: WARNING: listening on ${listenHost}, beyond loopback: anyone who can reach this port and has the token runs commands as ${process.env.USER ?? 'this user'}.\n`,
    );
  }
  // A token read from a file is never printed: the line names the file instead.
  process.stderr.write(
    options.tokenFile
      ? `dsh mcp: MCP over HTTP at ${server.endpoint} with Authorization: Bearer TOKEN, or at ${server.endpoint.replace(/\/mcp$/, '/t/TOKEN/mcp')} (TOKEN: the one in ${options.tokenFile})\n`
      : `dsh mcp: MCP over HTTP at ${server.url} (or ${server.endpoint} with Authorization: Bearer ${server.token})\n`,
  );
  const signal = await untilStopped(new Promise<never>(() => undefined));
  const status = signal ? signalStatus(signal) : 0;
  setTimeout(() => process.exit(status), shutdownBudgetMs(dsh.dumpConfig())).unref();
  await server.close().catch(() => undefined);
  await dsh.dispose().catch(() => undefined);
  return status;
}
