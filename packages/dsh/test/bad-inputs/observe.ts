/**
 * The bad-input table's vocabulary: a row names its layer, the input, the result it must get,
 * and how to try it; observations are short stable strings (an error code, never a message).
 */
import type { SubprocessHandle } from '@dsh/subprocess';

/** What a row's trial may use. */
export interface Rig {
  /** An unconfined full-preset composition (dsh.tools, dsh.ctx). */
  dsh: import('dsh').Dsh;
  agent: import('@dsh/core').Owner;
  /** A local subprocess runtime of its own. */
  runtime: import('@dsh/subprocess-local').LocalSubprocessRuntime;
  /** An initialized raw MCP line client (started on first use). */
  mcp(): Promise<import('../mcp/raw.js').Raw>;
  /** A scratch directory, removed after the run. */
  dir: string;
}

export interface BadInput {
  layer: string;
  input: string;
  /** The result it must get (a typed error, or the documented behaviour). */
  expect: string;
  run(rig: Rig): Promise<string>;
}

/** `DshError CODE` when `fn` throws (or rejects) one, `crash …` for anything else, `no error` otherwise. */
export async function thrown(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return 'no error';
  } catch (error) {
    const e = error as { name?: string; code?: string; message?: string };
    return e?.name === 'DshError' ? `DshError ${e.code}` : `crash ${e?.name}: ${e?.message}`;
  }
}

/** How a spawn ended: `start error CODE`, or `exit N` — or what it threw. */
export async function started(fn: () => SubprocessHandle | Promise<SubprocessHandle>): Promise<string> {
  let handle: SubprocessHandle;
  try {
    handle = await fn();
  } catch (error) {
    return thrown(() => {
      throw error;
    });
  }
  const outcome = await handle.done;
  return outcome.error ? `start error ${outcome.error.code}` : `exit ${outcome.exitCode}`;
}

/** A tool result: `isError CODE`, or `ok` with what `ok` picks out of it. */
export function toolResult(
  r: { isError: boolean; text: string; data: Record<string, unknown> },
  ok: (r: { text: string; data: Record<string, unknown> }) => string = () => 'ok',
): string {
  if (!r.isError) return ok(r);
  return `isError ${(r.data.error as { code?: string } | undefined)?.code ?? '?'}`;
}

/** A complete local spawn spec with `over` fields replaced. */
export function spec(over: Record<string, unknown> = {}): never {
  return {
    argv: ['true'],
    cwd: '/',
    env: {},
    stdin: { kind: 'ignore' },
    stdout: { kind: 'collect', maxBytes: 1024 },
    stderr: { kind: 'collect', maxBytes: 1024 },
    graceMs: 100,
    ...over,
  } as never;
}
