/**
 * How a sub-agent's fs requests are served (`fs/read_text_file`, `fs/write_text_file`). One
 * function holds the rules — reads of regular files only, bounded; writes inside the writable
 * roots (unless unconfined), judged on the real path, never through a symlink at the target —
 * and runs in-process when the world shares this machine's files, else as the source of a
 * `node -e` in that world (the Node.js its runtime server runs on), so an agent on another
 * machine reads and writes that machine's files under the same rules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ResolvedSandbox } from '@dsh/sandbox';
import { type SubprocessRuntime, smallSpec } from '@dsh/subprocess';

/** The most of a file a sub-agent may read at once. */
export const ACP_MAX_READ_BYTES = 16 * 1024 * 1024;
/** A read or write in another world that takes longer fails (a hung filesystem there). */
export const ACP_FS_TIMEOUT_MS = 30_000;
/** What the helper in another world may say on stderr: its verdict, or a crash's reason. */
const HELPER_STDERR_BYTES = 16 * 1024;

/** One request to {@link agentFsOp}. `mode` null: no sandbox policy (unconfined). */
export interface FsRequest {
  op: 'read' | 'write';
  path: string;
  limit: number;
  mode: string | null;
  roots: string[];
}
/** Its verdict. */
export type FsVerdict =
  | { ok: true; bytes?: Uint8Array }
  | { ok: false; code: 'invalid' | 'denied' | 'unreadable' | 'failed'; why: string };

/**
 * Serves one request. Self-contained on purpose: its source is also run elsewhere, so it uses
 * nothing but its arguments and Node's globals.
 */
export function agentFsOp(
  f: typeof import('node:fs'),
  p: typeof import('node:path'),
  req: FsRequest,
  data: Uint8Array | null,
): FsVerdict {
  /** The longest reason a verdict carries (the caller names the path): it fits the helper's stderr. */
  const whyMax = 500;
  const realOf = (x: string): string => {
    const missing: string[] = [];
    let at = p.resolve(x);
    for (;;) {
      try {
        return p.join(f.realpathSync(at), ...missing.reverse());
      } catch {
        if (at === p.dirname(at)) return p.resolve(x);
        missing.push(p.basename(at));
        at = p.dirname(at);
      }
    }
  };
  const within = (root: string, x: string): boolean => {
    const rel = p.relative(root, x);
    return rel === '' || (!rel.startsWith('..') && !p.isAbsolute(rel));
  };
  if (!p.isAbsolute(req.path) || req.path.includes('\0'))
    return { ok: false, code: 'invalid', why: 'the path must be absolute' };
  const c = f.constants;
  try {
    if (req.op === 'read') {
      const fd = f.openSync(req.path, c.O_RDONLY | c.O_NONBLOCK); // a FIFO opens at once, and is refused
      try {
        if (!f.fstatSync(fd).isFile()) return { ok: false, code: 'unreadable', why: 'not a regular file' };
        const buf = Buffer.allocUnsafe(req.limit + 1); // only the bytes read are handed on
        let n = 0;
        for (let k = 1; k > 0 && n < buf.length; n += k) k = f.readSync(fd, buf, n, buf.length - n, null);
        if (n > req.limit) return { ok: false, code: 'unreadable', why: `larger than ${req.limit} bytes` };
        return { ok: true, bytes: buf.subarray(0, n) };
      } finally {
        f.closeSync(fd);
      }
    }
    const real = realOf(req.path);
    const free = req.mode === null || req.mode === 'danger-full-access';
    if (!free && (req.mode === 'read-only' || !req.roots.map(realOf).some((r) => within(r, real)))) {
      return { ok: false, code: 'denied', why: `outside what sandbox mode ${req.mode} allows` };
    }
    f.mkdirSync(p.dirname(real), { recursive: true });
    // O_NOFOLLOW: a symlink swapped in since the check is refused.
    const fd = f.openSync(real, c.O_WRONLY | c.O_CREAT | c.O_TRUNC | c.O_NOFOLLOW, 0o644);
    try {
      const bytes = data ?? new Uint8Array(0);
      for (let n = 0; n < bytes.length; ) n += f.writeSync(fd, bytes, n, bytes.length - n);
    } finally {
      f.closeSync(fd);
    }
    return { ok: true };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return {
      ok: false,
      code: req.op === 'read' ? 'unreadable' : 'failed',
      why: (e.code ?? e.message).slice(0, whyMax),
    };
  }
}

/** The `node -e` program: the request as JSON in argv, the content on stdin, the verdict on stderr. */
const REMOTE_PROGRAM = [
  "const f = require('fs'), req = JSON.parse(process.argv[1]);",
  `const v = (${agentFsOp.toString()})(f, require('path'), req, req.op === 'write' ? f.readFileSync(0) : null);`,
  'if (v.ok) { if (v.bytes) process.stdout.write(v.bytes); } else { process.stderr.write(JSON.stringify(v)); process.exitCode = 2; }',
].join('\n');

/** Reads and writes files where the agent runs. Errors are ACP request errors. */
export interface AgentFiles {
  read(path: string): Promise<string>;
  write(path: string, content: string, sandbox: ResolvedSandbox | undefined): Promise<void>;
}

function request(op: FsRequest['op'], p: string, sandbox?: ResolvedSandbox): FsRequest {
  return {
    op,
    path: p,
    limit: ACP_MAX_READ_BYTES,
    mode: sandbox?.mode ?? null,
    roots: [...(sandbox?.writableRoots ?? [])],
  };
}

/** The ACP error of a failed verdict. */
function refused(req: FsRequest, v: Extract<FsVerdict, { ok: false }>): RequestError {
  if (req.op === 'read' && v.code !== 'invalid') return RequestError.resourceNotFound(`${req.path} (${v.why})`);
  const why = v.code === 'denied' ? `writing ${req.path} is ${v.why}` : v.why;
  return RequestError.invalidParams({ path: req.path }, why);
}

/** The verdict the helper printed, or null when its stderr holds something else. */
function verdictOf(said: string): FsVerdict | null {
  try {
    const v = JSON.parse(said) as FsVerdict;
    return v && v.ok === false && typeof v.code === 'string' && typeof v.why === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Runs the helper in the world of `runtime`. */
async function remote(runtime: SubprocessRuntime, req: FsRequest, data: string | null): Promise<FsVerdict> {
  const info = await (runtime as { ready?: Promise<{ execPath?: unknown }> }).ready?.catch(() => undefined);
  const node = typeof info?.execPath === 'string' ? info.execPath : 'node';
  const spec = {
    ...smallSpec([node, '-e', REMOTE_PROGRAM, JSON.stringify(req)], {
      maxBytes: ACP_MAX_READ_BYTES,
      stderrMaxBytes: HELPER_STDERR_BYTES,
      signal: AbortSignal.timeout(ACP_FS_TIMEOUT_MS),
    }),
    env: { NODE_OPTIONS: undefined }, // nothing but the verdict on its stderr
  };
  const h = runtime.spawn(data === null ? spec : { ...spec, stdin: { kind: 'bytes', data } });
  const outcome = await h.done;
  const said = h.stderrReader?.read(0).text.trim() ?? '';
  if (outcome.exitCode === 0 && !outcome.error) {
    return { ok: true, bytes: Buffer.from(h.stdoutReader?.read(0).text ?? '', 'utf8') };
  }
  const verdict = outcome.exitCode === 2 ? verdictOf(said) : null;
  if (verdict) return verdict;
  const why = outcome.error?.message || said || `exit code ${outcome.exitCode}`;
  return { ok: false, code: req.op === 'read' ? 'unreadable' : 'failed', why: `there: ${why.slice(0, 500)}` };
}

/** The files of the world `runtime` runs in. */
export function filesOf(runtime: SubprocessRuntime): AgentFiles {
  const here = runtime.sharesFilesystem;
  const serve = (req: FsRequest, data: string | null): Promise<FsVerdict> =>
    here
      ? Promise.resolve(agentFsOp(fs, path, req, data === null ? null : Buffer.from(data, 'utf8')))
      : remote(runtime, req, data);
  return {
    async read(p) {
      const req = request('read', p);
      const v = await serve(req, null);
      if (!v.ok) throw refused(req, v);
      return Buffer.from(v.bytes ?? new Uint8Array(0)).toString('utf8');
    },
    async write(p, content, sandbox) {
      const req = request('write', p, sandbox);
      const v = await serve(req, content);
      if (!v.ok) throw refused(req, v);
    },
  };
}
