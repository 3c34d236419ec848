/**
 * `dsh web`: a composition for a person, in a browser. The URL (with its token) goes to stdout,
 * the start-up facts to stderr. SIGINT (Ctrl-C), SIGTERM and SIGHUP stop the server and dispose
 * the composition — every process, job and terminal ended and joined; closing the page ends nothing.
 */
import { serveWeb, WEB_DEFAULT_HOST } from '@dsh/web';
import { DSH_VERSION } from '../version.js';
import { signalStatus } from './exit-codes.js';
import { composeServed, fenceText, type ServedOptions, shutdownBudgetMs, untilStopped } from './serve.js';

/** Options of `dsh web`. */
export interface WebCliOptions extends ServedOptions {
  /** `--port`. @default 0 (a free port) */
  port?: number;
  /** `--host`. @default 127.0.0.1 */
  host?: string;
  /** `--dump-config`: print the composition it would serve, and exit. */
  dumpConfig?: boolean;
}

/** Serves until a signal comes; resolves to the exit status. */
export async function webCommand(options: WebCliOptions): Promise<number> {
  const dsh = await composeServed(options, { preset: 'full' });
  const dump = dsh.dumpConfig();
  const hostname = options.host ?? WEB_DEFAULT_HOST;
  if (options.dumpConfig) {
    try {
      const web = { host: hostname, port: options.port ?? 0, input: true, token: 'random, printed at start' };
      process.stdout.write(`${JSON.stringify({ ...dump, web }, null, 2)}\n`);
      return 0;
    } finally {
      await dsh.dispose();
    }
  }
  let web: Awaited<ReturnType<typeof serveWeb>>;
  try {
    web = await serveWeb({ host: dsh, port: options.port ?? 0, hostname });
  } catch (error) {
    await dsh.dispose().catch(() => undefined);
    throw error;
  }
  const config = dump.config as { workspace: string };
  process.stderr.write(
    `dsh web ${DSH_VERSION}: preset ${dump.preset} · workspace ${config.workspace} · ${fenceText(dump)} · Ctrl-C stops it\n`,
  );
  process.stdout.write(`${web.url}\n`);
  const signal = await untilStopped(new Promise(() => undefined));
  const status = signal ? signalStatus(signal) : 0;
  setTimeout(() => process.exit(status), shutdownBudgetMs(dump)).unref();
  await web.close().catch(() => undefined);
  await dsh.dispose().catch(() => undefined);
  return status;
}
