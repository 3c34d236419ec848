/**
 * Editing by meaning (issue 23, 4): a server's workspace edit (a rename) applied to the files
 * where the commands run, under the sandbox's write rules: every file is first checked writable
 * in the agent's world (a read-only bind, a protected file, a path outside the writable roots);
 * one that is not aborts the whole edit and nothing changes. Each file is then written through
 * the world, and the answer is a unified diff (no context lines) of what changed.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DshError, type Owner } from '@dsh/core';
import { type SubprocessRuntime, smallSpec } from '@dsh/subprocess';
import { LSP_MAX_FILE_BYTES } from './files.js';
import type { LspHost, Place } from './host.js';
import { toLspPosition } from './positions.js';

/** Files one edit may change at most (each is one write in the world). */
export const LSP_EDIT_MAX_FILES = 500;
/** Text edits one server answer may hold at most (a whole file formatted is a few thousand). */
export const LSP_EDIT_MAX_EDITS = 50_000;
/** Characters of new text one answer may insert at most (the size of a file the servers are sent). */
export const LSP_EDIT_MAX_NEW_CHARS = 8 * 1024 * 1024;

interface Position {
  line: number;
  character: number;
}
export interface TextEdit {
  range: { start: Position; end: Position };
  newText: string;
}
export interface WorkspaceEdit {
  changes?: Record<string, TextEdit[]>;
  documentChanges?: ({ textDocument: { uri: string }; edits: TextEdit[] } | { kind: string })[];
}

/** A file the edit changed: its path, and its text before and after. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

/**
 * The text edits of each file, checked for shape and size (a server's answer is its own).
 * @throws DshError `LSP_EDIT_UNSUPPORTED` for file creations, renames or deletions, or an answer
 *   that is not a workspace edit; `LSP_EDIT_DENIED` past {@link LSP_EDIT_MAX_EDITS} or {@link LSP_EDIT_MAX_NEW_CHARS}.
 */
function editsByFile(edit: WorkspaceEdit): Map<string, TextEdit[]> {
  const unreadable = (what: string) =>
    new DshError('LSP_EDIT_UNSUPPORTED', `The server answered with ${what} dsh cannot read; nothing was changed.`);
  const out = new Map<string, TextEdit[]>();
  let count = 0;
  let chars = 0;
  const add = (uri: unknown, edits: unknown) => {
    if (typeof uri !== 'string' || !uri.startsWith('file:') || !Array.isArray(edits)) throw unreadable('an edit');
    for (const e of edits as TextEdit[]) {
      const shaped =
        typeof e?.newText === 'string' &&
        typeof e.range?.start?.line === 'number' &&
        typeof e.range?.end?.line === 'number';
      if (!shaped) throw unreadable('a text edit');
      chars += e.newText.length;
    }
    count += edits.length;
    if (count > LSP_EDIT_MAX_EDITS || chars > LSP_EDIT_MAX_NEW_CHARS) {
      throw new DshError(
        'LSP_EDIT_DENIED',
        `The server's edit is larger than dsh applies (at most ${LSP_EDIT_MAX_EDITS} edits and ${LSP_EDIT_MAX_NEW_CHARS} characters of new text); nothing was changed.`,
      );
    }
    const path = fileURLToPath(uri);
    out.set(path, [...(out.get(path) ?? []), ...(edits as TextEdit[])]);
  };
  if (typeof edit !== 'object' || edit === null) throw unreadable('an edit');
  const { changes, documentChanges } = edit;
  if (changes !== undefined && (typeof changes !== 'object' || changes === null)) throw unreadable('an edit');
  if (documentChanges !== undefined && !Array.isArray(documentChanges)) throw unreadable('an edit');
  for (const [uri, edits] of Object.entries(changes ?? {})) add(uri, edits);
  for (const change of documentChanges ?? []) {
    if (change && typeof change === 'object' && 'kind' in change) {
      throw new DshError(
        'LSP_EDIT_UNSUPPORTED',
        `The server's edit would ${change.kind} a file, which dsh's edits do not do; do that with bash (git mv, rm) instead.`,
      );
    }
    add(change?.textDocument?.uri, change?.edits);
  }
  return out;
}

/** The UTF-16 offset of an LSP position in `text` (LSP's own unit: a JavaScript string index). */
function offsetOf(text: string, lineStarts: number[], p: Position): number {
  const start = lineStarts[p.line] ?? text.length;
  return Math.min(start + p.character, lineStarts[p.line + 1] ?? text.length);
}

/** `text` with `edits` applied (they do not overlap, as LSP says). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const spans = edits
    .map((e) => ({
      from: offsetOf(text, lineStarts, e.range.start),
      to: offsetOf(text, lineStarts, e.range.end),
      text: e.newText,
    }))
    .sort((a, b) => b.from - a.from);
  // One pass from the start (spans sorted from the end above): linear in the text and the edits.
  const parts: string[] = [];
  let at = text.length;
  for (const s of spans) {
    parts.push(text.slice(Math.min(s.to, at), at), s.text);
    at = Math.min(s.from, at);
  }
  parts.push(text.slice(0, at));
  return parts.reverse().join('');
}

/** A unified diff of one file, without context lines (`--- a/… +++ b/…`, one hunk per run of changed lines). */
export function unifiedDiff(label: string, before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const hunks: string[] = [];
  if (a.length === b.length) {
    for (let i = 0; i < a.length; ) {
      if (a[i] === b[i]) {
        i++;
        continue;
      }
      let j = i;
      while (j < a.length && a[j] !== b[j]) j++;
      hunks.push(
        `@@ -${i + 1},${j - i} +${i + 1},${j - i} @@`,
        ...a.slice(i, j).map((l) => `-${l}`),
        ...b.slice(i, j).map((l) => `+${l}`),
      );
      i = j;
    }
  } else {
    let head = 0;
    while (head < a.length && head < b.length && a[head] === b[head]) head++;
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail])
      tail++;
    const old = a.slice(head, a.length - tail);
    const now = b.slice(head, b.length - tail);
    hunks.push(
      `@@ -${head + 1},${old.length} +${head + 1},${now.length} @@`,
      ...old.map((l) => `-${l}`),
      ...now.map((l) => `+${l}`),
    );
  }
  return [`--- a/${label}`, `+++ b/${label}`, ...hunks].join('\n');
}

/** Runs `argv` in the world with `input` on stdin; whether it succeeded, and its output. */
async function inWorld(runtime: SubprocessRuntime, argv: string[], input = ''): Promise<{ ok: boolean; out: string }> {
  const spec = smallSpec(argv, { maxBytes: 64 * 1024 });
  const h = runtime.spawn({ ...spec, stdin: input === '' ? { kind: 'ignore' } : { kind: 'bytes', data: input } });
  const done = await h.done;
  return {
    ok: done.exitCode === 0 && !done.error,
    out: `${h.stdoutReader?.read(0).text ?? ''}${h.stderrReader?.read(0).text ?? ''}${done.error?.message ?? ''}`,
  };
}

/**
 * Renames the symbol at `place` to `newName` across the project, where `owner`'s commands run.
 * @throws DshError `LSP_EDIT_DENIED` (a file may not be written: nothing changed), `LSP_EDIT_UNSUPPORTED`,
 *   `LSP_RENAME_FAILED` (the server gave no edit), and the errors of a query.
 */
export async function renameSymbol(
  host: LspHost,
  place: Place,
  newName: string,
  owner?: Owner,
): Promise<{ changes: FileChange[]; partial: string | null }> {
  const target = await host.forEdit(place, owner);
  const { server } = target;
  const edit = await server.request<WorkspaceEdit | null>('textDocument/rename', {
    textDocument: { uri: pathToFileURL(place.path).href },
    position: toLspPosition(server.textOf(place.path) ?? '', place.path, place.line, place.column),
    newName,
  });
  const byFile = edit ? editsByFile(edit) : new Map<string, TextEdit[]>();
  if (byFile.size === 0) {
    throw new DshError(
      'LSP_RENAME_FAILED',
      `The ${server.language} server has nothing to rename at that place; put the position on the symbol's name.`,
    );
  }
  return { changes: await writeEdit(target, byFile, 'rename'), partial: target.partial };
}

/** Where an edit is written: the server that made it, its files, and the world the commands run in. */
export type EditTarget = Awaited<ReturnType<LspHost['forEdit']>>;

/**
 * Writes a server's `edit` (text edits of files) through the world of `target`, all or nothing;
 * `what` names it in errors (`rename`, `format`, a code action's title).
 * @throws DshError `LSP_EDIT_DENIED`, `LSP_EDIT_UNSUPPORTED`, `LSP_EDIT_FAILED`.
 */
export async function applyWorkspaceEdit(target: EditTarget, edit: WorkspaceEdit, what: string): Promise<FileChange[]> {
  return writeEdit(target, editsByFile(edit), what);
}

async function writeEdit(
  { server, files, runtime }: EditTarget,
  byFile: Map<string, TextEdit[]>,
  what: string,
): Promise<FileChange[]> {
  if (byFile.size > LSP_EDIT_MAX_FILES) {
    throw new DshError(
      'LSP_EDIT_DENIED',
      `The ${what} would change ${byFile.size} files, more than ${LSP_EDIT_MAX_FILES}; nothing was changed.`,
    );
  }
  const paths = [...byFile.keys()];
  // Every file must be writable where the commands run, or nothing is written.
  const check = await inWorld(runtime, [
    'sh',
    '-c',
    'for f; do [ -f "$f" ] && [ -w "$f" ] || echo "$f"; done',
    'dsh-writable',
    ...paths,
  ]);
  const denied = check.out.split('\n').filter((l) => l !== '');
  if (!check.ok || denied.length > 0) {
    throw new DshError(
      'LSP_EDIT_DENIED',
      `The ${what} would change ${denied.length > 0 ? denied.join(', ') : 'files'} that this sandbox does not let you write; nothing was changed. Edit only files you may write, or ask for escalation.`,
      { data: { files: denied } },
    );
  }
  const changes: FileChange[] = [];
  for (const path of paths) {
    const before = server.textOf(path) ?? (await files.read(path));
    if (Buffer.byteLength(before) > LSP_MAX_FILE_BYTES)
      throw new DshError('LSP_EDIT_DENIED', `${path} is too large to edit here; nothing was changed.`);
    changes.push({ path, before, after: applyEdits(before, byFile.get(path) ?? []) });
  }
  for (const c of changes) {
    const wrote = await inWorld(runtime, ['sh', '-c', 'cat > "$1"', 'dsh-write', c.path], c.after);
    if (!wrote.ok) {
      throw new DshError(
        'LSP_EDIT_FAILED',
        `Writing ${c.path} failed (${wrote.out.trim()}); files before it in the list were changed.`,
        {
          data: { written: changes.slice(0, changes.indexOf(c)).map((x) => x.path) },
        },
      );
    }
  }
  return changes;
}
