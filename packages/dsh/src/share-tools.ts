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
import type { Owner, ToolCallOptions, ToolInfo, ToolResult } from '@dsh/core';
import { DEFAULT_YIELD_MS, serveMcp } from '@dsh/mcp';
import { makeShareDir, removeShareDir } from '@dsh/sandbox';

/** The tool a sub-agent is not given. */
const NOT_SHARED = 'agent_task';
/** The socket's name in a share directory. */
const SOCKET_NAME = 'tools.sock';
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

/** The servers of one composition, one per agent and place. */
export class SharedTools {
  private readonly servers = new Map<string, { server: Server; owner: Owner; dir: string | null }>();
  private host: SharedHost | null = null;

  /** The composition's tools, once it exists. */
  attach(host: SharedHost): void {
    this.host = host;
  }

  /** The bridge argv for `owner`'s sub-agent (the ShareTools hook of the ACP plugin). */
  readonly serve: ShareTools = async (owner, world) => {
    const place = world ? join(world.shareDir, SOCKET_NAME) : null;
    const held = [...this.servers.entries()].find(
      ([path, s]) => s.owner === owner && (place ? path === place : s.dir !== null),
    );
    // A world that was remade has a new directory: the old one's server has nothing left to serve.
    for (const [path, s] of this.servers) {
      if (!existsSync(path)) {
        this.servers.delete(path);
        s.server.close();
      }
    }
    const socket = held && this.servers.has(held[0]) ? held[0] : await this.listen(owner, place);
    const inside = world ? join(world.inside, SOCKET_NAME) : socket;
    return [process.execPath, '-e', BRIDGE, inside];
  };

  /** Stops every server and removes the private directories. */
  async dispose(): Promise<void> {
    const all = [...this.servers.entries()];
    this.servers.clear();
    await Promise.all(
      all.map(
        ([path, s]) =>
          new Promise<void>((resolve) => {
            s.server.close(() => resolve());
            rmSync(path, { force: true });
            removeShareDir(s.dir);
          }),
      ),
    );
  }

  private async listen(owner: Owner, place: string | null): Promise<string> {
    const dir = place ? null : makeShareDir(join(tmpdir(), `dsh-${userInfo().username}`, 'fence'));
    const path = place ?? join(dir as string, SOCKET_NAME);
    if (existsSync(path)) rmSync(path, { force: true }); // a world's directory is only ever written here
    const server = createServer((socket) => this.connected(owner, socket));
    server.maxConnections = SHARED_TOOLS_MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    this.servers.set(path, { server, owner, dir });
    return path;
  }

  private connected(owner: Owner, socket: Socket): void {
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
          call: (agent, name, args, options) =>
            name === NOT_SHARED
              ? Promise.resolve({
                  text: `${NOT_SHARED} is not given to sub-agents.`,
                  isError: true,
                  data: { error: { code: 'UNKNOWN_TOOL' } },
                })
              : host.call(agent, name, args, options),
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
