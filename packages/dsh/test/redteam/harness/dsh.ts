/**
 * Driving the real dsh as an agent would, as root or as the suite's user: `dsh run --json` for
 * one command, and `dsh mcp` (a line client of its stdio protocol, answering escalations through
 * elicitation) for rows that need the network switch, several calls of one agent, a background
 * job or an approval. Both give an {@link Attempt}: the rendered tool text the model would read,
 * plus the structured result.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Bundle } from './bundle.js';
import { collect, type Finished, killGroup, start, userArgv } from './spawn.js';
import { type FenceUser, ROOT } from './users.js';

/** What one tool call gave. */
export interface Attempt {
  /** The rendered result, as the model reads it. */
  text: string;
  isError: boolean;
  data: Record<string, unknown> | null;
  /** True when the suite's deadline, not dsh, ended the call. */
  killed: boolean;
}

/** Who runs dsh, where, with what. */
export interface Launch {
  user: FenceUser;
  env: Record<string, string>;
  /** The workspace (dsh run: the current directory). */
  cwd: string;
  bundle: Bundle;
}

/** The sandbox modes the suite attacks. */
export type Mode = 'read-only' | 'workspace-write';

/** Deadline of one call (a row's own pauses last at most about 20 s each). */
export const CALL_DEADLINE_MS = 90_000;

function parseRun(out: Finished): Attempt {
  try {
    const r = JSON.parse(out.stdout) as { text: string; isError: boolean; data: Record<string, unknown> };
    return { text: r.text, isError: r.isError, data: r.data ?? null, killed: out.killed };
  } catch {
    const why = out.killed ? 'killed at the deadline' : `exit ${out.code ?? out.signal}`;
    return {
      text: `[dsh run gave no result: ${why}]\n${out.stdout}\n${out.stderr}`,
      isError: true,
      data: null,
      killed: out.killed,
    };
  }
}

/** Options of one `dsh run`. */
export interface RunOptions {
  mode?: Mode;
  /** Run it on a fresh controlling terminal (ptyrun.py): its pending input is saved to this file. */
  ptyPending?: string;
  deadlineMs?: number;
  /** Network by name: `--allow-host` for each. @default none (no network) */
  allowHosts?: readonly string[];
}

/** `dsh run --sandbox MODE --json -- COMMAND` in `launch.cwd`. */
export async function dshRun(launch: Launch, command: string, options: RunOptions = {}): Promise<Attempt> {
  const argv = [
    process.execPath,
    launch.bundle.launcher,
    'run',
    '--sandbox',
    options.mode ?? 'workspace-write',
    '--json',
    ...(options.allowHosts ?? []).flatMap((h) => ['--allow-host', h]),
  ];
  argv.push('--', command);
  const deadlineMs = options.deadlineMs ?? CALL_DEADLINE_MS;
  if (!options.ptyPending) return parseRun(await collect(start(argv, launch), deadlineMs));
  const stdoutFile = `${options.ptyPending}.stdout`;
  // ptyrun runs as root and hands its terminal to dsh (run as the row's user).
  const wrapped = [
    'python3',
    launch.bundle.ptyrun,
    options.ptyPending,
    stdoutFile,
    ...userArgv(launch.user, launch.env, argv),
  ];
  const out = await collect(start(wrapped, { ...launch, user: ROOT }), deadlineMs);
  let stdout = '';
  try {
    stdout = readFileSync(stdoutFile, 'utf8');
  } catch {
    // dsh never started
  }
  return parseRun({ ...out, stdout });
}

/** Options of a `dsh mcp` session. */
export interface McpOptions {
  mode?: Mode;
  network?: boolean;
  /** Answer escalation requests (elicitations) with an approval. @default false: decline */
  approve?: boolean;
  /** Keep a session log (in ~/.dsh/sessions). @default true */
  log?: boolean;
}

type Message = { id?: number | string; method?: string; result?: Record<string, unknown>; error?: unknown };

/** One `dsh mcp --preset base` server: one agent. */
export class McpSession {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<number, (m: Message) => void>();
  private next = 1;
  private buffered = '';
  private stderr = '';
  /** Escalation messages the person was shown. */
  readonly asked: string[] = [];
  private readonly exited: Promise<void>;

  constructor(
    launch: Launch,
    private readonly options: McpOptions = {},
  ) {
    const argv = [process.execPath, launch.bundle.launcher, 'mcp', '--preset', 'base', '--workspace', launch.cwd];
    argv.push('--sandbox', options.mode ?? 'workspace-write', ...(options.network ? ['--network'] : []));
    if (options.log === false) argv.push('--no-log');
    this.child = start(argv, launch);
    this.exited = new Promise((r) => this.child.once('close', () => r()));
    this.child.stdin?.on('error', () => undefined);
    this.child.stderr?.on('data', (d: Buffer) => {
      this.stderr += d.toString();
    });
    this.child.stdout?.on('data', (d: Buffer) => this.onData(d.toString()));
  }

  private send(message: unknown): void {
    this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...(message as object) })}\n`);
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      let m: Message;
      try {
        m = JSON.parse(line) as Message;
      } catch {
        continue;
      }
      if (m.method === 'elicitation/create' && m.id !== undefined) {
        this.asked.push(String((m as { params?: { message?: string } }).params?.message ?? ''));
        const result = this.options.approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
        this.send({ id: m.id, result });
      } else if (m.method && m.id !== undefined) this.send({ id: m.id, result: {} });
      else if (typeof m.id === 'number') this.waiting.get(m.id)?.(m);
    }
  }

  private request(method: string, params: unknown, deadlineMs: number): Promise<Message | null> {
    const id = this.next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), deadlineMs);
      this.exited.then(() => resolve(null));
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.send({ id, method, params });
    });
  }

  /** Initializes the protocol (declaring elicitation); false when the server never answered. */
  async open(): Promise<boolean> {
    const init = await this.request(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'redteam', version: '1' },
      },
      CALL_DEADLINE_MS,
    );
    if (!init?.result) return false;
    this.send({ method: 'notifications/initialized' });
    return true;
  }

  /** Calls the bash tool with `args` (`command` and any other argument). */
  async bash(args: Record<string, unknown>, deadlineMs = CALL_DEADLINE_MS): Promise<Attempt> {
    const m = await this.request('tools/call', { name: 'bash', arguments: args }, deadlineMs);
    const r = m?.result as
      | { content?: { text?: string }[]; isError?: boolean; structuredContent?: unknown }
      | undefined;
    if (!r) return { text: `[dsh mcp gave no result]\n${this.stderr}`, isError: true, data: null, killed: m === null };
    const text = (r.content ?? []).map((c) => c.text ?? '').join('\n');
    return {
      text,
      isError: r.isError === true,
      data: (r.structuredContent as Record<string, unknown>) ?? null,
      killed: false,
    };
  }

  /** Closes stdin and waits for the server to end (killed after a deadline). */
  async close(): Promise<void> {
    this.child.stdin?.end();
    const timer = setTimeout(() => killGroup(this.child), 20_000);
    await this.exited;
    clearTimeout(timer);
    killGroup(this.child);
  }
}
