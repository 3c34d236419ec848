/**
 * ACP v1 `terminal/*` requests of one sub-agent session, backed by ctx.shell: each terminal is a
 * one-shot bash of the command (quoted argv), confined by the owner's sandbox policy, its output
 * (stdout and stderr as one stream, interleaved as written) kept as a bounded tail. Released (or left over at the session's end) terminals are ended.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { DshError } from '@dsh/core';
import type { ResolvedSandbox } from '@dsh/sandbox';
import type { ShellExecutor, ShellProcess, ShellProcessOutcome } from '@dsh/shell';
import { shellQuote } from '@dsh/subprocess';

/** Output kept per terminal when the agent names no limit. */
export const ACP_TERMINAL_OUTPUT_BYTES = 1024 * 1024;
/** Terminals one sub-agent session may hold at once. */
export const ACP_MAX_TERMINALS = 16;
/** Longest a sub-agent's terminal command may run. */
export const ACP_TERMINAL_TIMEOUT_MS = 600_000;

interface Held {
  proc: ShellProcess;
  output: string;
  limit: number;
  truncated: boolean;
  outcome: ShellProcessOutcome | null;
}

/** The terminals of one session. */
export class AcpTerminals {
  private readonly held = new Map<string, Held>();
  private next = 1;

  constructor(
    private readonly shell: () => ShellExecutor,
    private readonly sandbox: () => ResolvedSandbox | undefined,
    private readonly workspace: string,
  ) {}

  /** @throws DshError `INVALID_ARGUMENT` (too many terminals, a relative cwd). */
  create(p: {
    command: string;
    args?: string[];
    env?: { name: string; value: string }[];
    cwd?: string | null;
    outputByteLimit?: number | null;
  }): string {
    if (this.held.size >= ACP_MAX_TERMINALS) {
      throw new DshError('INVALID_ARGUMENT', `At most ${ACP_MAX_TERMINALS} terminals at once; release one first.`);
    }
    const shell = this.shell();
    const env = Object.fromEntries((p.env ?? []).map((e) => [e.name, e.value]));
    const sandbox = this.sandbox();
    const spec = shell.resolve({
      // One stream, as a terminal has: stderr goes where stdout goes, interleaved as written.
      command: `exec 2>&1; ${[p.command, ...(p.args ?? [])].map(shellQuote).join(' ')}`,
      workdir: p.cwd ?? this.workspace,
      timeoutMs: ACP_TERMINAL_TIMEOUT_MS,
      env,
      ...(sandbox ? { sandbox } : {}),
    });
    const id = `term-${this.next++}`;
    const held: Held = {
      proc: shell.start(spec),
      output: '',
      limit: p.outputByteLimit ?? ACP_TERMINAL_OUTPUT_BYTES,
      truncated: false,
      outcome: null,
    };
    void held.proc.done.then((o) => {
      held.outcome = o;
    });
    this.held.set(id, held);
    return id;
  }

  private get(id: string): Held {
    const t = this.held.get(id);
    if (!t) {
      // An ACP error the agent can read (not an internal error): the id is unknown or released.
      throw RequestError.invalidParams(
        { terminalId: id },
        `no terminal ${id} in this session (it was released, or never created)`,
      );
    }
    const read = t.proc.readOutput();
    t.output += read.text;
    if (read.lossy) t.truncated = true;
    const bytes = Buffer.from(t.output);
    if (bytes.length > t.limit) {
      t.output = bytes
        .subarray(bytes.length - t.limit)
        .toString('utf8')
        .replace(/^\uFFFD+/, '');
      t.truncated = true;
    }
    return t;
  }

  private static status(o: ShellProcessOutcome | null): { exitCode: number | null; signal: string | null } | null {
    return o ? { exitCode: o.exitCode, signal: o.signal } : null;
  }

  output(id: string): {
    output: string;
    truncated: boolean;
    exitStatus: { exitCode: number | null; signal: string | null } | null;
  } {
    const t = this.get(id);
    return { output: t.output, truncated: t.truncated, exitStatus: AcpTerminals.status(t.outcome) };
  }

  async waitForExit(id: string, signal?: AbortSignal): Promise<{ exitCode: number | null; signal: string | null }> {
    const t = this.get(id);
    const aborted = new Promise<never>((_, reject) =>
      signal?.addEventListener('abort', () => reject(new DshError('ABORTED', 'the wait was cancelled')), {
        once: true,
      }),
    );
    const o = await Promise.race([t.proc.done, aborted]);
    return { exitCode: o.exitCode, signal: o.signal };
  }

  kill(id: string): void {
    void this.get(id).proc.kill();
  }

  release(id: string): void {
    const t = this.get(id);
    void t.proc.kill();
    this.held.delete(id);
  }

  /** Ends every terminal still held and waits for them. */
  async dispose(): Promise<void> {
    const all = [...this.held.values()];
    this.held.clear();
    await Promise.all(all.map((t) => t.proc.kill()));
    await Promise.all(all.map((t) => t.proc.done));
  }
}
