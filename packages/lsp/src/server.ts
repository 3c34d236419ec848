/**
 * One running language server: spawned through ctx.subprocess with raw pipes (stdin, stdout) and
 * stderr as a bounded tail with no spill, framed by vscode-jsonrpc. It syncs files from disk
 * before each query (didOpen, then didChange with the full text when it changed), keeps the
 * latest published diagnostics per file, and ends with shutdown/exit, then terminate().
 */
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DshError, settleWithin } from '@dsh/core';
import type { SubprocessHandle, SubprocessRuntime } from '@dsh/subprocess';
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node.js';
import { DIAGNOSTICS_QUIET_MS, ServerActivity } from './activity.js';
import type { FileAccess } from './files.js';
import type { LanguageServerConfig } from './servers.js';

/** The server's stderr kept for errors: its last words, bounded, never spilled. */
export const LSP_STDERR_TAIL_BYTES = 16 * 1024;
/** How long `initialize` may take (a cold tsserver or pyright start); well under an MCP client's 60 s request limit, so the call can still say why. */
export const LSP_INITIALIZE_TIMEOUT_MS = 30_000;
/** How long one request may take before it is cancelled and reported. */
export const LSP_REQUEST_TIMEOUT_MS = 30_000;
/** How long `shutdown` may take at dispose before the tree is ended. */
export const LSP_SHUTDOWN_MS = 2_000;

/** An LSP diagnostic as the server publishes it (0-based positions). */
export interface RawDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity?: number;
  message: string;
  source?: string;
  code?: string | number;
}

/** `promise`, or an `LSP_TIMEOUT` error saying `what()` once `ms` passed. */
function timeoutOf<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  return settleWithin(promise, ms, (): never => {
    throw new DshError('LSP_TIMEOUT', what());
  });
}

/** A started language server. */
export class LanguageServer {
  private readonly handle: SubprocessHandle;
  private readonly connection: MessageConnection;
  private readonly opened = new Map<string, { version: number; text: string }>();
  private readonly diagnostics = new Map<string, RawDiagnostic[]>();
  private readonly activity = new ServerActivity();
  private exited = false;
  /** Requests in flight, failed at once when the server exits (a set, not a race per request on the exit: that would keep every answer alive until the server ends). */
  private readonly inFlight = new Set<() => void>();
  readonly ready: Promise<void>;

  constructor(
    runtime: SubprocessRuntime,
    readonly language: string,
    readonly root: string,
    private readonly config: LanguageServerConfig,
    env: Record<string, string | undefined> = {},
  ) {
    this.handle = runtime.spawn({
      argv: config.command,
      cwd: root,
      env,
      stdin: { kind: 'pipe' },
      stdout: { kind: 'pipe' },
      stderr: { kind: 'collect', maxBytes: LSP_STDERR_TAIL_BYTES },
      graceMs: LSP_SHUTDOWN_MS,
    });
    const stdout = this.handle.stdout as NonNullable<SubprocessHandle['stdout']>;
    const stdin = this.handle.stdin as NonNullable<SubprocessHandle['stdin']>;
    stdin.on('error', () => undefined); // a dead server is told by its exit
    // Writes go through a buffer that never fails: a server that died must not surface as an
    // EPIPE rejection inside vscode-jsonrpc (unhandled, it would end the host); its exit says it.
    const sink = new PassThrough();
    sink.pipe(stdin);
    this.connection = createMessageConnection(new StreamMessageReader(stdout), new StreamMessageWriter(sink));
    this.connection.onNotification(
      'textDocument/publishDiagnostics',
      (p: { uri: string; diagnostics: RawDiagnostic[] }) => {
        this.diagnostics.set(p.uri, p.diagnostics);
        this.activity.published(p.uri);
      },
    );
    this.connection.onNotification('$/progress', (p: { token: string | number; value?: { kind?: unknown } }) =>
      this.activity.progress(p.token, p.value?.kind),
    );
    // Requests a server may send; answered so it never waits on us.
    this.connection.onRequest('workspace/configuration', (p: { items?: unknown[] }) => (p.items ?? []).map(() => null));
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onError(() => undefined);
    this.connection.listen();
    void this.handle.exit.then(() => {
      this.exited = true;
      this.activity.poke();
      for (const fail of [...this.inFlight]) fail();
    });
    // A server that exits (or never starts) before answering fails at once, with its stderr.
    const died = this.handle.exit.then((o) => {
      const how = o.error
        ? `did not start (${o.error.message})`
        : `exited (${o.signal ?? `exit code ${o.exitCode}`}) before answering initialize`;
      throw new DshError('LSP_START_FAILED', this.failure(how));
    });
    died.catch(() => undefined);
    const init = this.initialize();
    init.catch(() => undefined); // when the exit wins the race
    this.ready = timeoutOf(Promise.race([init, died]), LSP_INITIALIZE_TIMEOUT_MS, () =>
      this.failure('did not answer initialize in time'),
    );
  }

  /** Closes `path` on the server (a file deleted from disk): it no longer counts as open. */
  async forget(path: string): Promise<void> {
    const uri = pathToFileURL(path).href;
    if (!this.opened.delete(uri)) return;
    this.diagnostics.delete(uri);
    this.activity.changed();
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } }).catch(() => undefined);
  }

  /** The text this server was last given for `path`, or null when it was not opened. */
  textOf(path: string): string | null {
    return this.opened.get(pathToFileURL(path).href)?.text ?? null;
  }

  /** Paths of the files this server was told about (they are re-synced before each query). */
  openPaths(): string[] {
    return [...this.opened.keys()].map((uri) => fileURLToPath(uri));
  }

  /** The server's pid (in its world), once started. */
  get pid(): number | undefined {
    return this.handle.pid;
  }

  /** True once the server process ended (crashed, killed, or shut down). */
  get dead(): boolean {
    return this.exited;
  }

  /** The tail of the server's stderr. */
  stderrTail(): string {
    return this.handle.stderrReader?.read(0).text.trim().slice(-2_000) ?? '';
  }

  /** A message naming the server, what happened and its last stderr. */
  failure(what: string): string {
    const tail = this.stderrTail();
    return `the ${this.language} language server (${this.config.command.join(' ')}) ${what}${tail ? `; its stderr ends: ${tail}` : ''}`;
  }

  private async initialize(): Promise<void> {
    const rootUri = pathToFileURL(this.root).href;
    await this.connection.sendRequest('initialize', {
      processId: null, // the server's watch on a client pid fails across worlds (another pid namespace or machine)
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
      capabilities: {
        textDocument: {
          synchronization: { didSave: true },
          publishDiagnostics: { relatedInformation: false },
          hover: { contentFormat: ['plaintext', 'markdown'] },
          definition: { linkSupport: false },
          references: {},
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          codeAction: {
            codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] } },
            resolveSupport: { properties: ['edit'] },
            dataSupport: true,
          },
          formatting: {},
        },
        workspace: { configuration: true, workspaceFolders: true, symbol: {} },
      },
      initializationOptions: this.config.initializationOptions ?? {},
    });
    await this.connection.sendNotification('initialized', {});
  }

  /**
   * Opens `path` or sends its new text when it changed on disk. Resolves true when the server was
   * told something new (fresh diagnostics will follow).
   * @throws DshError `LSP_FILE_UNREADABLE` when the file cannot be read.
   */
  async sync(path: string, languageId: string, files: FileAccess): Promise<boolean> {
    const text = await files.read(path);
    const uri = pathToFileURL(path).href;
    const known = this.opened.get(uri);
    if (known && known.text === text) return false;
    this.activity.changed();
    if (!known) {
      this.opened.set(uri, { version: 1, text });
      await this.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId, version: 1, text },
      });
    } else {
      const version = known.version + 1;
      this.opened.set(uri, { version, text });
      // The old diagnostics stay until the server publishes new ones: a server that finds them
      // unchanged (a clean file edited and still clean) publishes nothing, and they stand once
      // DIAGNOSTICS_UNCHANGED_MS passed (activity.ts), as another file's do.
      await this.connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      });
    }
    return true;
  }

  /**
   * Diagnostics of `path` once settled (activity.ts): published, no announced work running, and
   * quiet for a moment; waiting up to `waitMs`. `settled` is false when the wait ran out first
   * (the list, when there is one, may then be incomplete).
   */
  async diagnosticsOf(
    path: string,
    waitMs: number,
  ): Promise<{ diagnostics: RawDiagnostic[] | null; settled: boolean }> {
    const uri = pathToFileURL(path).href;
    const settled = await this.activity.until(
      () =>
        this.exited ||
        (this.diagnostics.has(uri) &&
          !this.activity.busy &&
          this.activity.quietFor(uri) >= DIAGNOSTICS_QUIET_MS &&
          this.activity.current(uri)),
      waitMs,
    );
    return { diagnostics: this.diagnostics.get(uri) ?? null, settled: settled && !this.exited };
  }

  /** A request, bounded in time; a dead server is an error naming its stderr. */
  async request<R>(method: string, params: unknown): Promise<R> {
    if (this.exited) throw new DshError('LSP_SERVER_EXITED', this.failure('exited'));
    const answered = new Promise<R>((resolve, reject) => {
      const onExit = (): void =>
        reject(
          new DshError(
            'LSP_SERVER_EXITED',
            this.failure(`exited while answering ${method}; the next call starts it again`),
          ),
        );
      this.inFlight.add(onExit);
      this.connection
        .sendRequest<R>(method, params)
        .then(resolve, reject)
        .finally(() => this.inFlight.delete(onExit));
    });
    return timeoutOf(answered, LSP_REQUEST_TIMEOUT_MS, () =>
      this.failure(`did not answer ${method} within ${LSP_REQUEST_TIMEOUT_MS / 1000} s`),
    );
  }

  /** shutdown and exit within the grace, then the tree is ended. */
  async dispose(): Promise<void> {
    if (!this.exited) {
      try {
        await timeoutOf(this.connection.sendRequest('shutdown'), LSP_SHUTDOWN_MS, () => 'shutdown timed out');
        await this.connection.sendNotification('exit');
      } catch {
        // it is ended below either way
      }
    }
    this.handle.stdin?.end();
    await settleWithin(this.handle.exit, LSP_SHUTDOWN_MS, () => undefined);
    await this.handle.terminate();
    this.connection.dispose();
  }
}
