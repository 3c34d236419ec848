/**
 * `ctx.lsp`: one language server per (language, project root), started lazily on first use,
 * restarted with backoff after it dies (errors carry its stderr tail), all shut down and ended at
 * dispose. Queries take absolute paths and 1-based positions and give them back the same way.
 */
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DshError, type Owner } from '@dsh/core';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { type FileAccess, filesOf } from './files.js';
import { toColumn, toLspPosition } from './positions.js';
import { LanguageServer, type RawDiagnostic } from './server.js';
import { type LanguageServerConfig, programOf } from './servers.js';

declare module '@dsh/core' {
  interface ServiceMap {
    /** Language servers over raw pipes, and the queries the lsp_* tools make. */
    lsp: LspHost;
  }
}

/** How long a query waits for a server's first diagnostics of a file it was just told about. */
export const DIAGNOSTICS_WAIT_MS = 15_000;
/** How long a definition, references or hover query waits for the server to settle on its file first. */
export const QUERY_SETTLE_WAIT_MS = 15_000;
/** Restart backoff after a server died: doubles per death in a row, up to the maximum. */
export const RESTART_BACKOFF_MS = 250;
export const RESTART_BACKOFF_MAX_MS = 8_000;

/** A place in a file (1-based line and column). */
export interface Place {
  path: string;
  line: number;
  column: number;
}
/** A diagnostic (1-based). */
export interface Diagnostic extends Place {
  severity: 'error' | 'warning' | 'information' | 'hint';
  message: string;
  source: string | null;
}
/** A symbol of a file. */
export interface SymbolInfo extends Place {
  name: string;
  kind: number;
  depth: number;
}

const SEVERITY = ['error', 'error', 'warning', 'information', 'hint'] as const;
type Range = { start: { line: number; character: number } };
type Location = { uri: string; range: Range };

/** The place of `range` in `uri`, its column in characters of `text` (the file's, when known). */
function placeOf(uri: string, range: Range, text: string | null): Place {
  const path = fileURLToPath(uri);
  return { path, line: range.start.line + 1, column: toColumn(text, range.start.line, range.start.character) };
}

/** Texts of the files a result names: the server's copy, else read (null when unreadable). */
async function textsOf(
  paths: readonly string[],
  server: LanguageServer,
  files: FileAccess,
): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const p of new Set(paths)) out.set(p, server.textOf(p) ?? (await files.read(p).catch(() => null)));
  return out;
}

/** The language servers of one composition. */
export class LspHost {
  private readonly running = new Map<string, LanguageServer>();
  private readonly deaths = new Map<string, { count: number; at: number }>();
  private readonly starting = new Map<string, Promise<LanguageServer>>();
  private disposed = false;

  constructor(
    /**
     * Where `owner`'s servers run, and a key for that place: the agent's sandbox world in a
     * restricted mode (a language server reads and runs what the workspace holds: it is the
     * agent's code, confined like it), this machine otherwise.
     * @throws DshError `SANDBOX_UNAVAILABLE` when a restricted mode has no fence.
     */
    private readonly placeOf: (owner?: Owner) => { runtime: SubprocessRuntime; scope: string; confined?: boolean },
    private readonly workspace: string,
    readonly servers: Readonly<Record<string, LanguageServerConfig>>,
  ) {}

  /** The language and LSP language id for `path`, or null when no server serves it. */
  languageOf(path: string): { language: string; languageId: string } | null {
    const ext = extname(path).toLowerCase();
    for (const [language, config] of Object.entries(this.servers)) {
      const languageId = config.extensions[ext];
      if (languageId) return { language, languageId };
    }
    return null;
  }

  /** Nearest directory at or above `path` holding a root marker, within the workspace. */
  private async rootOf(path: string, config: LanguageServerConfig, files: FileAccess): Promise<string> {
    const dirs: string[] = [];
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      dirs.push(dir);
      if (dir === this.workspace || relative(this.workspace, dir).startsWith('..') || dir === dirname(dir)) break;
    }
    const candidates = dirs.flatMap((dir) => config.rootMarkers.map((m) => join(dir, m)));
    const found = await files.exists(candidates);
    const at = found.indexOf(true);
    return at < 0 ? this.workspace : (dirs[Math.floor(at / config.rootMarkers.length)] as string);
  }

  /**
   * The server for `path`, synced with the file on disk.
   * @throws DshError `LSP_NO_SERVER`, `LSP_BACKOFF`, `LSP_START_FAILED`, `LSP_FILE_UNREADABLE`, `DISPOSED`.
   */
  private async serverFor(
    path: string,
    owner?: Owner,
  ): Promise<{ server: LanguageServer; changed: boolean; files: FileAccess }> {
    if (this.disposed) throw new DshError('DISPOSED', 'the language servers were disposed.');
    const lang = this.languageOf(path);
    if (!lang) {
      const known = Object.values(this.servers).flatMap((c) => Object.keys(c.extensions));
      throw new DshError(
        'LSP_NO_SERVER',
        `No language server serves ${extname(path) || 'files without an extension'}; served: ${known.join(' ')}.`,
      );
    }
    const config = this.servers[lang.language] as LanguageServerConfig;
    if (config.unavailable) {
      throw new DshError(
        'LSP_UNAVAILABLE',
        `The ${lang.language} language server cannot run here: ${config.unavailable}.`,
      );
    }
    const place = this.placeOf(owner);
    const files = filesOf(place.runtime, place.confined);
    const root = await this.rootOf(path, config, files);
    const key = `${place.scope}\0${lang.language}\0${root}`;
    // One start per key, shared by concurrent callers; a dead server is started again.
    let pending = this.starting.get(key);
    if (!pending || this.running.get(key)?.dead) {
      if (this.running.get(key)?.dead) {
        this.running.delete(key);
        const d = this.deaths.get(key) ?? { count: 0, at: 0 };
        this.deaths.set(key, { count: d.count + 1, at: Date.now() });
      }
      pending = this.start(key, lang.language, root, config, place.runtime);
      this.starting.set(key, pending);
      const mine = pending;
      pending.catch(() => {
        if (this.starting.get(key) === mine) this.starting.delete(key);
      });
    }
    const server = await pending;
    // Every file the server holds is brought up to date, not only this one: an edit made with
    // bash to another file (an export, a type) changes what this one's answers are.
    for (const other of server.openPaths()) {
      const otherLang = this.languageOf(other);
      if (other === path || !otherLang) continue;
      // A file deleted from disk is closed on the server: its importers then see it gone.
      const [present] = await files.exists([other]);
      if (!present) await server.forget(other);
      else await server.sync(other, otherLang.languageId, files).catch(() => undefined);
    }
    const changed = await server.sync(path, lang.languageId, files);
    return { server, changed, files };
  }

  /** Starts the server of `key` after any backoff it owes, and waits for its initialize. */
  private async start(
    key: string,
    language: string,
    root: string,
    config: LanguageServerConfig,
    runtime: SubprocessRuntime,
  ): Promise<LanguageServer> {
    const d = this.deaths.get(key);
    const wait = d ? Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_MS * 2 ** (d.count - 1)) : 0;
    if (d && Date.now() - d.at < wait) await new Promise((r) => setTimeout(r, wait - (Date.now() - d.at)));
    if (this.disposed) throw new DshError('DISPOSED', 'the language servers were disposed.');
    // The program (or, for `node script`, its script) must exist where the server runs: a remote
    // world may not have this machine's packages. Said plainly instead of a module-not-found stack.
    const program = programOf(config);
    if (program) {
      const [present] = await filesOf(runtime).exists([program]);
      if (!present) {
        throw new DshError(
          'LSP_UNAVAILABLE',
          `The ${language} language server cannot run where the commands run: ${program} is not there (a remote world has not this machine's packages); install the server there and configure its command.`,
        );
      }
    }
    const server = new LanguageServer(runtime, language, root, config);
    this.running.set(key, server);
    try {
      await server.ready;
    } catch (error) {
      this.running.delete(key);
      this.deaths.set(key, { count: (this.deaths.get(key)?.count ?? 0) + 1, at: Date.now() });
      const why = error instanceof DshError ? error.message : server.failure(`failed to start (${String(error)})`);
      await server.dispose();
      throw new DshError('LSP_START_FAILED', why);
    }
    this.deaths.delete(key);
    return server;
  }

  /**
   * Errors and warnings of `path` (after syncing it from disk), once the server settled; `partial`
   * says why they may be incomplete when it did not settle within {@link DIAGNOSTICS_WAIT_MS}.
   */
  async diagnostics(path: string, owner?: Owner): Promise<Diagnostic[] & { partial?: string }> {
    const { server } = await this.serverFor(path, owner);
    const { diagnostics: published, settled } = await server.diagnosticsOf(path, DIAGNOSTICS_WAIT_MS);
    if (published === null && server.dead) {
      throw new DshError(
        'LSP_SERVER_EXITED',
        server.failure('exited before it published diagnostics; the next call starts it again'),
      );
    }
    if (published === null) {
      throw new DshError(
        'LSP_TIMEOUT',
        server.failure(`published no diagnostics within ${DIAGNOSTICS_WAIT_MS / 1000} s`),
      );
    }
    const raw: RawDiagnostic[] = published;
    const text = server.textOf(path);
    const list: Diagnostic[] & { partial?: string } = raw.map((d) => ({
      ...placeOf(pathToFileURL(path).href, d.range, text),
      severity: SEVERITY[d.severity ?? 1] ?? 'error',
      message: d.message,
      source: d.source ?? null,
    }));
    if (!settled) {
      list.partial = `the ${server.language} server was still working after ${DIAGNOSTICS_WAIT_MS / 1000} s (loading the project, or still publishing): this list may be incomplete; call lsp_diagnostics again`;
    }
    return list;
  }

  private async locations(
    method: string,
    place: Place,
    owner: Owner | undefined,
    extra: Record<string, unknown> = {},
  ): Promise<Place[]> {
    const { server, files } = await this.serverFor(place.path, owner);
    const partial = await this.settle(server, place.path);
    const result = await server.request<Location | Location[] | null>(method, {
      textDocument: { uri: pathToFileURL(place.path).href },
      position: toLspPosition(server.textOf(place.path) ?? '', place.path, place.line, place.column),
      ...extra,
    });
    const list = (result === null ? [] : Array.isArray(result) ? result : [result]).map((l) => ({
      uri: l.uri ?? (l as { targetUri?: string }).targetUri ?? '',
      range: l.range ?? (l as { targetRange?: Range }).targetRange,
    }));
    const texts = await textsOf(
      list.map((l) => fileURLToPath(l.uri)),
      server,
      files,
    );
    const places: Place[] & { partial?: string } = list.map((l) =>
      placeOf(l.uri, l.range, texts.get(fileURLToPath(l.uri)) ?? null),
    );
    if (partial) places.partial = partial;
    return places;
  }

  /**
   * Waits (up to {@link QUERY_SETTLE_WAIT_MS}) until the server has settled on `path` — it
   * published the file's diagnostics and announces no work — so a query is not answered by a
   * server that has not loaded the project yet (tsserver's syntax-only first answers). Returns
   * why an answer may be partial, or null.
   */
  private async settle(server: LanguageServer, path: string): Promise<string | null> {
    const { settled } = await server.diagnosticsOf(path, QUERY_SETTLE_WAIT_MS);
    return settled || server.dead
      ? null
      : `the ${server.language} server was still loading the project after ${QUERY_SETTLE_WAIT_MS / 1000} s: this answer may be incomplete; ask again`;
  }

  /**
   * The server of `path` (synced and settled, like a query's) and the runtime its world runs
   * in, for an edit (edits.ts). The position is checked like a query's.
   */
  async forEdit(
    place: Place,
    owner?: Owner,
  ): Promise<{ server: LanguageServer; files: FileAccess; runtime: SubprocessRuntime; partial: string | null }> {
    const { server, files } = await this.serverFor(place.path, owner);
    const partial = await this.settle(server, place.path);
    toLspPosition(server.textOf(place.path) ?? '', place.path, place.line, place.column);
    return { server, files, runtime: this.placeOf(owner).runtime, partial };
  }

  /** Where the symbol at `place` is defined. */
  definition(place: Place, owner?: Owner): Promise<Place[]> {
    return this.locations('textDocument/definition', place, owner);
  }

  /** Where the symbol at `place` is used (its declaration included). */
  references(place: Place, owner?: Owner): Promise<Place[]> {
    return this.locations('textDocument/references', place, owner, { context: { includeDeclaration: true } });
  }

  /** The hover text at `place`, as plain text, or null. */
  async hover(place: Place, owner?: Owner): Promise<string | null> {
    const { server } = await this.serverFor(place.path, owner);
    await this.settle(server, place.path);
    const r = await server.request<{ contents: unknown } | null>('textDocument/hover', {
      textDocument: { uri: pathToFileURL(place.path).href },
      position: toLspPosition(server.textOf(place.path) ?? '', place.path, place.line, place.column),
    });
    if (!r) return null;
    const part = (c: unknown): string =>
      typeof c === 'string'
        ? c
        : Array.isArray(c)
          ? c.map(part).join('\n')
          : String((c as { value?: unknown })?.value ?? '');
    return part(r.contents).trim() || null;
  }

  /** The symbols of `path`, outline order. */
  async symbols(path: string, owner?: Owner): Promise<SymbolInfo[]> {
    const { server } = await this.serverFor(path, owner);
    type Sym = {
      name: string;
      kind: number;
      range?: Range;
      selectionRange?: Range;
      location?: Location;
      children?: Sym[];
    };
    const result =
      (await server.request<Sym[] | null>('textDocument/documentSymbol', {
        textDocument: { uri: pathToFileURL(path).href },
      })) ?? [];
    const out: SymbolInfo[] = [];
    const text = server.textOf(path);
    const startOf = (s: Sym) => (s.range ?? s.selectionRange ?? s.location?.range)?.start ?? { line: 0, character: 0 };
    // Outline order: each level by where its symbols start (servers may sort them by name).
    const byStart = (a: Sym, b: Sym) =>
      startOf(a).line - startOf(b).line || startOf(a).character - startOf(b).character;
    const walk = (list: Sym[], depth: number) => {
      for (const s of [...list].sort(byStart)) {
        const range = s.selectionRange ?? s.range ?? s.location?.range;
        if (range)
          out.push({
            ...placeOf(s.location?.uri ?? pathToFileURL(path).href, range, text),
            name: s.name,
            kind: s.kind,
            depth,
          });
        if (s.children) walk(s.children, depth + 1);
      }
    };
    walk(result, 0);
    return out;
  }

  /** The live servers of `owner`'s place (workspace-wide queries). */
  runningFor(owner?: Owner): LanguageServer[] {
    const { scope } = this.placeOf(owner);
    return [...this.running.entries()].filter(([key, s]) => key.startsWith(`${scope}\0`) && !s.dead).map(([, s]) => s);
  }

  /** Servers running now (for dumpConfig and tests). */
  list(): { language: string; root: string; pid: number | undefined; dead: boolean }[] {
    return [...this.running.values()].map((s) => ({ language: s.language, root: s.root, pid: s.pid, dead: s.dead }));
  }

  /** Shuts every server down (shutdown/exit, then terminate). Idempotent. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((s) => s.dispose()));
  }
}
