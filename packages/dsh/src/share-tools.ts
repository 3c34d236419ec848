/**
 * `shareTools`: dsh's own tools for a sub-agent. The composition serves them over MCP on a unix
 * socket, for the agent that asked: in its world's share directory (bound read-only inside at
 * `/run/dsh/share`, so only that world can reach it), or, for an unconfined agent, in a private
 * directory of this user. The sub-agent starts a small bridge (Node.js, stdin/stdout to the
 * socket) as a stdio MCP server, so its calls run through this composition, as that agent, in the
 * same world and policy, in the session log. `agent_task` itself is not shared (no sub-agent
 * starts sub-agents). Escalation is never asked of anyone through it (no person is behind it).
 */
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { ShareTools } from '@dsh/acp';
import { DshError, type Owner, type ToolCallOptions, type ToolInfo, type ToolResult } from '@dsh/core';
import { DEFAULT_YIELD_MS, serveMcp } from '@dsh/mcp';
import { makeShareDir, removeShareDir } from '@dsh/sandbox';

/** The tool a sub-agent is not given. */
const NOT_SHARED = 'agent_task';
/** The socket's name in a share directory. */
const SOCKET_NAME = 'tools.sock';
/** A unix socket's path at most (sun_path holds 108 bytes with its terminator). */
const UNIX_PATH_MAX = 107;
/** Connections to one agent's socket at once at most (each is an MCP session of a sub-agent). */
export const SHARED_TOOLS_MAX_CONNECTIONS = 16;

/** The bridge a sub-agent runs: stdin to the socket, the socket to stdout; it ends with either. */
const BRIDGE = [
  "const s = require('node:net').connect(process.argv[1]);",
  'process.stdin.pipe(s); s.pipe(process.stdout);',
  "s.on('error', (e) => { process.stderr.write('dsh tools: ' + e.message + '\\n'); process.exit(1); });",
  "s.on('close', () => process.exit(0)); process.stdin.on('end', () => s.end());",
].join(' ');

/** What the shared server calls: the composition's tools. */
export interface SharedHost {
  list(): ToolInfo[];
  call(agent: Owner, name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
}

/** One agent's server. */
interface Served {
  server: Server;
  owner: Owner;
  /** A private directory made for it (an unconfined agent), removed with it. */
  dir: string | null;
  sockets: Set<Socket>;
}

/** A refusal the sub-agent reads. */
function refusal(text: string, code: string): Promise<ToolResult> {
  return Promise.resolve({ text, isError: true, data: { error: { code } } });
}

/** The servers of one composition, one per agent and place. */
export class SharedTools {
  private readonly servers = new Map<string, Promise<Served>>();
  private host: SharedHost | null = null;

  /**
   * `policyOf(owner)` names the owner's sandbox policy now: a served call runs only while it is
   * the one the sub-agent was given (a mode widened later never reaches an older world).
   */
  constructor(private readonly policyOf: (owner: Owner) => string = () => '') {}

  /** The composition's tools, once it exists. */
  attach(host: SharedHost): void {
    this.host = host;
  }

  /** The bridge argv for `owner`'s sub-agent (the ShareTools hook of the ACP plugin). */
  readonly serve: ShareTools = async (owner, world) => {
    // A world that was remade has a new directory: the old one's server has nothing left to serve.
    for (const [path, served] of this.servers) {
      if (!existsSync(path)) void this.stop(path, served);
    }
    let place = world ? join(world.shareDir, SOCKET_NAME) : this.privates.get(owner);
    let dir: string | null = null;
    if (!place) {
      dir = makeShareDir(join(tmpdir(), `dsh-${userInfo().username}`, 'fence'));
      place = join(dir, SOCKET_NAME);
      this.privates.set(owner, place);
    }
    // One listen per place, however many tasks start at once.
    let served = this.servers.get(place);
    if (!served) {
      served = this.listen(owner, place, dir, this.policyOf(owner));
      this.servers.set(place, served);
      const failed = place;
      served.catch(() => {
        this.servers.delete(failed);
        if (dir) this.privates.delete(owner);
      });
    }
    await served;
    return [process.execPath, '-e', BRIDGE, world ? join(world.inside, SOCKET_NAME) : place];
  };

  /** Stops `owner`'s servers (its session ended). */
  async release(owner: Owner): Promise<void> {
    const mine: [string, Promise<Served>][] = [];
    for (const [path, served] of this.servers)
      if ((await served.catch(() => null))?.owner === owner) mine.push([path, served]);
    this.privates.delete(owner);
    await Promise.all(mine.map(([path, served]) => this.stop(path, served)));
  }

  /** Stops every server (its connections too) and removes the private directories. */
  async dispose(): Promise<void> {
    await Promise.all([...this.servers.entries()].map(([path, served]) => this.stop(path, served)));
  }

  private readonly privates = new Map<Owner, string>();

  private async stop(path: string, pending: Promise<Served>): Promise<void> {
    this.servers.delete(path);
    const served = await pending.catch(() => null);
    if (!served) return;
    for (const socket of served.sockets) socket.destroy(); // a bridge stays connected for its whole session
    await new Promise<void>((resolve) => served.server.close(() => resolve()));
    rmSync(path, { force: true });
    removeShareDir(served.dir);
  }

  /**
   * A server for `owner` at `path` (in a world's share directory, or in `dir`, made for it).
   * @throws DshError `ACP_START_FAILED` when it cannot listen (rejection).
   */
  private async listen(owner: Owner, path: string, dir: string | null, policy: string): Promise<Served> {
    if (Buffer.byteLength(path) > UNIX_PATH_MAX) {
      removeShareDir(dir);
      throw new DshError(
        'ACP_START_FAILED',
        `The sub-agent tools socket path ${path} is too long for a unix socket; set TMPDIR to a shorter directory, and retry.`,
      );
    }
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      this.connected(owner, socket, policy);
    });
    server.maxConnections = SHARED_TOOLS_MAX_CONNECTIONS;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
    } catch (error) {
      removeShareDir(dir);
      throw new DshError(
        'ACP_START_FAILED',
        `The sub-agent tools socket ${path} could not listen: ${(error as Error).message}.`,
      );
    }
    return { server, owner, dir, sockets };
  }

  private connected(owner: Owner, socket: Socket, policy: string): void {
    const host = this.host;
    if (!host) {
      socket.destroy();
      return;
    }
    socket.on('error', () => undefined);
    const handle = serveMcp({
      host: {
        tools: {
          list: () => host.list().filter((t) => t.name !== NOT_SHARED),
          call: (agent, name, args, options) => {
            if (name === NOT_SHARED) return refusal(`${NOT_SHARED} is not given to sub-agents.`, 'UNKNOWN_TOOL');
            if (this.policyOf(owner) !== policy) {
              return refusal(
                'The sandbox policy of the agent that gave this task changed since it started; these tools are no longer served to it. Finish, and let that agent start a new task.',
                'SANDBOX_POLICY_CHANGED',
              );
            }
            return host.call(agent, name, args, options);
          },
        },
        createAgent: () => owner,
      },
      input: socket,
      output: socket,
      yieldMs: DEFAULT_YIELD_MS,
      // The client is the sub-agent's: whatever it declares, nobody is asked through it.
      personBehind: false,
      serverInfo: { name: 'dsh', version: '0.1.0' },
    });
    socket.once('close', () => void handle.close().catch(() => undefined));
  }
}
