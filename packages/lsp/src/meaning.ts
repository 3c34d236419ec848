/**
 * More editing by meaning (issue 23, 4), beside rename (edits.ts): symbols of the whole
 * workspace, a file formatted by its server, and the code actions (quick fixes, refactorings) at
 * a place, one of which can be applied. Every edit is written like a rename's: checked writable in
 * the agent's world first, all or nothing.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DshError, type Owner } from '@dsh/core';
import { applyWorkspaceEdit, type FileChange, type TextEdit, type WorkspaceEdit } from './edits.js';
import type { LspHost, Place } from './host.js';
import { toColumn, toLspPosition } from './positions.js';
import type { LanguageServer } from './server.js';

type Range = { start: { line: number; character: number }; end: { line: number; character: number } };

/** A symbol of the workspace. */
export interface WorkspaceSymbol extends Place {
  name: string;
  kind: number;
  /** The symbol it belongs to (a class of a method), when the server says. */
  container: string | null;
}

/** A code action a server offers at a place. */
export interface CodeActionInfo {
  title: string;
  kind: string | null;
  /** Why it cannot be applied now, when the server says so. */
  disabled: string | null;
}

type RawAction = {
  title: string;
  kind?: string;
  edit?: WorkspaceEdit;
  command?: unknown;
  data?: unknown;
  disabled?: { reason: string };
};

const at = (path: string): Place => ({ path, line: 1, column: 1 });

/** Workspace symbols taken from servers' answers at most (one more than are shown tells that more exist). */
const LSP_MAX_SYMBOLS_READ = 1_000;

/**
 * Symbols whose name matches `query`, from the server of `path` (any file of the project), or,
 * without it, from every server the agent has running.
 * @throws DshError `LSP_NO_SERVER` when no server runs for the agent and no path is given.
 */
export async function workspaceSymbols(
  host: LspHost,
  query: string,
  path: string | undefined,
  owner?: Owner,
): Promise<WorkspaceSymbol[]> {
  const servers: LanguageServer[] = path ? [(await host.forEdit(at(path), owner)).server] : host.runningFor(owner);
  if (servers.length === 0) {
    throw new DshError(
      'LSP_NO_SERVER',
      'No language server runs for you yet: give path (any file of the project), or use another lsp_ tool on a file first.',
    );
  }
  type Sym = { name: string; kind: number; containerName?: string; location: { uri: string; range?: Range } };
  const out: WorkspaceSymbol[] = [];
  for (const server of servers) {
    const found = (await server.request<Sym[] | null>('workspace/symbol', { query })) ?? [];
    if (!Array.isArray(found)) continue;
    for (const s of found) {
      if (out.length > LSP_MAX_SYMBOLS_READ) break;
      if (typeof s?.location?.uri !== 'string' || !s.location.uri.startsWith('file:')) continue;
      const file = fileURLToPath(s.location.uri);
      const start = s.location.range?.start ?? { line: 0, character: 0 };
      // Columns from the text the server was sent, else as the server counts them: a file the
      // server names is never read here for it (it may be one the agent may not read).
      const text = server.textOf(file);
      out.push({
        path: file,
        line: start.line + 1,
        column: toColumn(text, start.line, start.character),
        name: s.name,
        kind: s.kind,
        container: s.containerName || null,
      });
    }
  }
  return out;
}

/** The indentation a file uses (tabs, or the narrowest run of leading spaces; 2 when none). */
function indentationOf(text: string): { tabSize: number; insertSpaces: boolean } {
  if (/^\t/m.test(text)) return { tabSize: 4, insertSpaces: false };
  const widths = [...text.matchAll(/^( +)\S/gm)].map((m) => (m[1] as string).length);
  return { tabSize: widths.length > 0 ? Math.min(...widths, 8) : 2, insertSpaces: true };
}

/**
 * `path` formatted by its server (with the file's own indentation), written through the world.
 * @throws DshError `LSP_EDIT_DENIED`, `LSP_EDIT_FAILED`, and the errors of a query.
 */
export async function formatFile(host: LspHost, path: string, owner?: Owner): Promise<FileChange[]> {
  const target = await host.forEdit(at(path), owner);
  const uri = pathToFileURL(path).href;
  const edits = await target.server.request<TextEdit[] | null>('textDocument/formatting', {
    textDocument: { uri },
    options: indentationOf(target.server.textOf(path) ?? ''),
  });
  if (!edits || edits.length === 0) return [];
  return (await applyWorkspaceEdit(target, { changes: { [uri]: edits } }, 'format')).filter(
    (c) => c.before !== c.after,
  );
}

/** The server's code actions at `place`, with the diagnostics of its line as their context. */
async function actionsAt(host: LspHost, place: Place, owner?: Owner) {
  const target = await host.forEdit(place, owner);
  const { server } = target;
  const position = toLspPosition(server.textOf(place.path) ?? '', place.path, place.line, place.column);
  const { diagnostics } = await server.diagnosticsOf(place.path, 0);
  const context = (diagnostics ?? []).filter(
    (d) => d.range.start.line <= position.line && d.range.end.line >= position.line,
  );
  const raw =
    (await server.request<(RawAction | { title: string; command: string })[] | null>('textDocument/codeAction', {
      textDocument: { uri: pathToFileURL(place.path).href },
      range: { start: position, end: position },
      context: { diagnostics: context },
    })) ?? [];
  const actions = (Array.isArray(raw) ? raw : []).filter((a): a is RawAction => typeof a?.title === 'string');
  return { target, actions };
}

/** The code actions at `place`, numbered from 1 in the server's order. */
export async function codeActions(host: LspHost, place: Place, owner?: Owner): Promise<CodeActionInfo[]> {
  const { actions } = await actionsAt(host, place, owner);
  return actions.map((a) => ({ title: a.title, kind: a.kind ?? null, disabled: a.disabled?.reason ?? null }));
}

/**
 * Applies code action number `index` (from 1) at `place`: its edit, resolved from the server when
 * it comes later. An action that only runs a server command is refused (dsh writes edits only).
 * @throws DshError `INVALID_ARGUMENT` (no such action), `LSP_EDIT_UNSUPPORTED`, `LSP_EDIT_DENIED`, `LSP_EDIT_FAILED`.
 */
export async function applyCodeAction(
  host: LspHost,
  place: Place,
  index: number,
  owner?: Owner,
): Promise<{ title: string; changes: FileChange[] }> {
  const { target, actions } = await actionsAt(host, place, owner);
  const chosen = actions[index - 1];
  if (!chosen) {
    throw new DshError(
      'INVALID_ARGUMENT',
      `There are ${actions.length} code actions at that place; apply one numbered 1 to ${actions.length}, as lsp_code_actions lists them.`,
      { data: { field: 'apply', count: actions.length } },
    );
  }
  if (chosen.disabled) {
    throw new DshError('LSP_EDIT_UNSUPPORTED', `"${chosen.title}" cannot be applied now: ${chosen.disabled.reason}.`);
  }
  let edit = chosen.edit;
  if (!edit && chosen.data !== undefined) {
    edit = (await target.server.request<RawAction | null>('codeAction/resolve', chosen))?.edit;
  }
  if (!edit) {
    throw new DshError(
      'LSP_EDIT_UNSUPPORTED',
      `"${chosen.title}" runs a command of the ${target.server.language} server instead of giving an edit, which dsh does not run; make that change with bash or another action.`,
    );
  }
  return { title: chosen.title, changes: await applyWorkspaceEdit(target, edit, `code action "${chosen.title}"`) };
}
