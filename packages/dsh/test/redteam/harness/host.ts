/**
 * One row's run as one user: its own directories (a HOME with the row's baits, a workspace, a
 * directory outside the fence for markers, the live protocol's directory in the workspace), its nonce, its dsh launches, the host-side shell it arms with, and everything it
 * must undo, undone in reverse order even when the row fails.
 */
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Bundle } from './bundle.js';
import { type Attempt, dshRun, type Launch, type McpOptions, McpSession, type RunOptions } from './dsh.js';
import { type LiveHooks, type LiveLog, liveSh, watchLive } from './live.js';
import { argvOf, killAll, pids } from './proc.js';
import { type Finished, run } from './spawn.js';
import { type FenceUser, ROOT } from './users.js';

/** The PATH every dsh and host shell of the suite gets. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where a host's directories go. */
export interface HostOptions {
  /** Put the workspace under the host's /tmp (the read-only row). @default under the suite's root */
  workspaceUnderTmp?: boolean;
}

/** A row's run as one user. */
export class Host {
  readonly nonce = randomBytes(8).toString('hex');
  /** What the probes carry in their argv (`exec -a TAG`): the host finds them by it. */
  readonly tag = `rt-${this.nonce}`;
  readonly root: string;
  readonly home: string;
  readonly ws: string;
  readonly outside: string;
  readonly rt: string;
  /** Extra environment of every dsh this host starts (secrets, BASH_ENV…). */
  readonly env: Record<string, string> = {};
  /** What the host does at the live protocol's pauses (rows set these while arming). */
  hooks: LiveHooks = {};
  /** Row-specific facts found while arming or during the attempt (evidence). */
  readonly facts: Record<string, unknown> = {};
  /** Notes the row's evidence line adds. */
  readonly notes: string[] = [];
  private readonly undo: (() => unknown)[] = [];

  constructor(
    readonly user: FenceUser,
    readonly bundle: Bundle,
    parent: string,
    readonly rowId: string,
    options: HostOptions = {},
  ) {
    this.root = join(parent, `${rowId}-${user.name}`);
    mkdirSync(this.root, { mode: 0o700 });
    this.home = this.dir(join(this.root, 'home'));
    this.outside = this.dir(join(this.root, 'outside'));
    this.own(this.root);
    if (options.workspaceUnderTmp) {
      this.ws = mkdtempSync(`/tmp/dsh-redteam-${rowId}-`);
      this.own(this.ws);
      this.defer(() => rmSync(this.ws, { recursive: true, force: true }));
    } else this.ws = this.dir(join(this.root, 'ws'));
    this.rt = this.dir(join(this.ws, '.rt'));
  }

  /** Makes `path` (and its parents) owned by the row's user; returns it. */
  dir(path: string, mode = 0o700): string {
    const first = mkdirSync(path, { recursive: true, mode });
    // Every directory it made, not only the last.
    for (let at = path; first && at.length >= first.length; at = dirname(at)) this.own(at);
    if (!first) this.own(path);
    return path;
  }

  /** Writes a file owned by the row's user (its parent made too). */
  write(path: string, content: string, mode = 0o600): string {
    if (!existsSync(dirname(path))) this.dir(dirname(path));
    writeFileSync(path, content, { mode });
    this.own(path);
    return path;
  }

  /** Reads a host file, or null. */
  read(path: string): string | null {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  }

  private own(path: string): void {
    chownSync(path, this.user.uid, this.user.gid);
  }

  /** The environment of every program this host starts for the row's user. */
  baseEnv(): Record<string, string> {
    const u = this.user.name;
    // No TMPDIR: dsh keeps its output copies where it does for people, /tmp/dsh-<user>.
    return {
      PATH: SYSTEM_PATH,
      HOME: this.home,
      USER: u,
      LOGNAME: u,
      LANG: 'C.UTF-8',
      SHELL: '/bin/bash',
      ...this.env,
    };
  }

  /** How dsh is launched for this row (in `cwd`, the workspace by default). */
  launch(cwd = this.ws, user = this.user): Launch {
    return { user, env: this.baseEnv(), cwd, bundle: this.bundle };
  }

  /** Bash on the host, unconfined, as the row's user (or root): what arming runs. */
  sh(command: string, options: { root?: boolean; cwd?: string; deadlineMs?: number } = {}): Promise<Finished> {
    return run(['bash', '-c', command], {
      user: options.root ? ROOT : this.user,
      env: this.baseEnv(),
      cwd: options.cwd ?? this.ws,
      deadlineMs: options.deadlineMs ?? 30_000,
    });
  }

  /**
   * {@link sh} of a command that speaks the live protocol, answered with {@link hooks}; the
   * protocol's files are removed after, so the attempt starts afresh.
   */
  async shLive(command: string, options: { root?: boolean } = {}): Promise<Finished> {
    const log: LiveLog = { readySeen: false, heldSeen: false, errors: [] };
    const out = await watchLive(this.rt, () => this.hooks, this.sh(command, options), log);
    for (const f of ['ready', 'go', 'held', 'done']) rmSync(join(this.rt, f), { force: true });
    if (log.errors.length > 0) throw new Error(`while arming: ${log.errors.join('; ')}`);
    return out;
  }

  /** The live protocol's bash prelude for a command (see live.ts). */
  live(): string {
    return liveSh(this.rt);
  }

  /** `exec -a TAG python3 probe.py ARGS…`: a probe the host finds by its tag. */
  probe(...args: string[]): string {
    return `exec -a ${this.tag} python3 ${this.bundle.probe} ${args.join(' ')}`;
  }

  /** One `dsh run` of `command`. */
  dshRun(command: string, options: RunOptions = {}): Promise<Attempt> {
    return dshRun(this.launch(), command, options);
  }

  /** A `dsh mcp` agent, opened; closed with the host. */
  async mcp(options: McpOptions = {}, cwd = this.ws): Promise<McpSession> {
    const session = new McpSession(this.launch(cwd), options);
    this.defer(() => session.close());
    if (!(await session.open())) throw new Error('dsh mcp did not answer initialize');
    return session;
  }

  /** Registers an undo step (run in reverse order by {@link cleanup}). */
  defer(step: () => unknown): void {
    this.undo.push(step);
  }

  /** Undoes everything: deferred steps, processes named after the tag, the row's directories. */
  async cleanup(): Promise<string[]> {
    const failures: string[] = [];
    for (const step of this.undo.reverse()) {
      try {
        await step();
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    // The tagged probes, and their helpers named after the tag (`TAG-keeper`…).
    killAll(pids().filter((pid) => argvOf(pid)?.[0]?.startsWith(this.tag)));
    rmSync(this.root, { recursive: true, force: true });
    return failures;
  }
}
