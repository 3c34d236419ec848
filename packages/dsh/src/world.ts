/**
 * The composition's execution world (DESIGN §15): `{ kind: 'local' }`, this machine, or
 * `{ kind: 'remote', connect }`, a runtime server reached over a channel argv (`ssh -T host`,
 * `docker exec -i ctr`, `kubectl exec -i pod --`) and booted there when missing. Shell, jobs,
 * terminals, tools and the MCP server run in it unchanged; workspace and output paths are the
 * remote's; the sandbox resolves on the remote side.
 */
import { tmpdir } from 'node:os';
import { NO_EDITOR_SCRIPT } from '@dsh/bash-local';
import { DshError, type Plugin, settleWithin } from '@dsh/core';
import type { FarSide } from '@dsh/sandbox';
import { type SubprocessRuntime, smallSpec } from '@dsh/subprocess';
import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { type ConnectedWorld, connectWorld } from '@dsh/subprocess-remote';
import { ReconnectingRuntime } from './world-reconnect.js';

/** Where commands run. */
export type WorldConfig =
  | { kind: 'local' }
  | {
      kind: 'remote';
      /** The channel argv; dsh appends the command that starts its runtime server there. */
      connect: string[];
      /** Node.js on the remote. @default the first `node` on its PATH */
      node?: string;
      /**
       * Whether the channel joins the command it runs into one string for the remote user's
       * (POSIX) shell, as ssh does — then dsh quotes it as one word. Set it for ssh wrappers
       * (`autossh`, `gcloud compute ssh`, `tsh ssh`). @default true when the program is `ssh`
       */
      joinsArgv?: boolean;
    };

/** Plugin name of the remote world's `ctx.subprocess`. */
export const WORLD_REMOTE_PLUGIN = 'world-remote';
/** The longest a clean-up command on the remote (mkdir, rm of the output directory) may take. */
const REMOTE_STEP_MS = 30_000;
/** What such a step may print (an error message is enough). */
const REMOTE_STEP_OUTPUT_BYTES = 64 * 1024;

/** A connected remote world and the local runtime that carries its channel. */
export interface OpenWorld extends Omit<ConnectedWorld, 'runtime'> {
  /** ctx.subprocess there: remade after a loss (world-reconnect.ts). */
  runtime: ReconnectingRuntime;
  /** Called with each world made after a loss, before calls reach it (the output directory is made again there). */
  onRemade?: (world: OpenWorld) => Promise<void>;
  connect: string[];
  carrier: LocalSubprocessRuntime;
  /** Runs a small command there; resolves with its exit code and output. */
  run(argv: string[]): Promise<{ exitCode: number | null; text: string }>;
  /** Ends the channel and its carrier. */
  close(): Promise<void>;
}

/**
 * Connects the remote world of `config`.
 * @throws DshError `WORLD_UNAVAILABLE`, `INVALID_ARGUMENT` (rejections).
 */
export async function openRemoteWorld(
  config: Extract<WorldConfig, { kind: 'remote' }>,
  containment: 'auto' | 'session',
): Promise<OpenWorld> {
  const carrier = new LocalSubprocessRuntime({ containment });
  const connect = () =>
    connectWorld(config.connect, carrier, {
      cwd: tmpdir(),
      containment,
      ...(config.node ? { node: config.node } : {}),
      ...(config.joinsArgv !== undefined ? { joinsArgv: config.joinsArgv } : {}),
    });
  let world: ConnectedWorld;
  try {
    world = await connect();
  } catch (error) {
    await carrier.dispose();
    throw error;
  }
  let open: OpenWorld | undefined;
  const runtime: ReconnectingRuntime = new ReconnectingRuntime(world.runtime, async () => {
    const again = await connect();
    if (open) {
      open.info = again.info;
      // The new world is made ready through its own runtime before calls reach it.
      const step = stepOn(again.runtime);
      await open.onRemade?.({ ...open, run: step }).catch(async (error) => {
        await again.runtime.dispose();
        throw error;
      });
    }
    return again.runtime;
  });
  const run = stepOn(runtime);
  open = {
    ...world,
    runtime,
    connect: [...config.connect],
    carrier,
    run,
    close: async () => {
      // A silent far side cannot hold teardown: past the bound the carrier ends the channel.
      await settleWithin(runtime.dispose(), REMOTE_STEP_MS, () => undefined);
      await carrier.dispose();
    },
  };
  return open;
}

/** Runs a small command through `runtime`; resolves with its exit code and output. */
function stepOn(runtime: SubprocessRuntime): OpenWorld['run'] {
  return async (argv: string[]) => {
    const h = runtime.spawn(
      smallSpec(argv, { maxBytes: REMOTE_STEP_OUTPUT_BYTES, signal: AbortSignal.timeout(REMOTE_STEP_MS) }),
    );
    // The far side may hang: the step is bounded here, not by a terminate that waits on it.
    const outcome = await settleWithin(h.done, REMOTE_STEP_MS, () => ({ exitCode: null, signal: null, error: null }));
    if (outcome.error) throw outcome.error;
    return {
      exitCode: outcome.exitCode,
      text: `${h.stdoutReader?.read(0).text ?? ''}${h.stderrReader?.read(0).text ?? ''}`,
    };
  };
}

/** What the sandbox needs to know about the far side. */
export function farSideOf(world: OpenWorld): FarSide {
  const sandbox = world.info.sandbox as
    | { unavailable?: string | null; bwrapPath?: string; node?: string; unreadable?: string }
    | undefined;
  return {
    ...(sandbox?.bwrapPath ? { bwrapPath: sandbox.bwrapPath } : {}),
    // The execute-only copy the far side made (so its server is not dumpable), else its Node.js.
    node: typeof sandbox?.node === 'string' ? sandbox.node : world.info.execPath,
    ...(typeof sandbox?.unreadable === 'string' ? { unreadable: sandbox.unreadable } : {}),
    root: world.info.uid === 0,
    entry: String(world.info.entry),
    unavailable: sandbox ? (sandbox.unavailable ?? null) : 'the remote runtime server did not probe for bubblewrap',
  };
}

/**
 * Mounts the remote runtime as `ctx.subprocess`. Teardown removes the composition's output
 * directory there (unless kept), then ends the channel.
 */
export function remoteWorldPlugin(world: OpenWorld, cleanup: { dir: string; keep: boolean }): Plugin {
  let ended: Promise<void> | undefined;
  return {
    name: WORLD_REMOTE_PLUGIN,
    setup(api) {
      api.provide('subprocess', world.runtime);
    },
    async dispose(reason) {
      if (reason !== 'teardown') return;
      ended ??= (async () => {
        if (!cleanup.keep && !world.runtime.disconnected)
          await world.run(['rm', '-rf', '--', cleanup.dir]).catch(() => undefined);
        await world.close();
      })();
      await ended;
    },
  };
}

/**
 * Checks the workspace and makes the output directory on the remote.
 * @throws DshError `INVALID_ARGUMENT` (the workspace is not a directory there), `WORLD_UNAVAILABLE`.
 */
export async function prepareRemote(
  world: OpenWorld,
  workspace: string,
  place: { root: string; spillDir: string; editor: string },
): Promise<void> {
  const ws = await world.run(['test', '-d', workspace]);
  if (ws.exitCode !== 0) {
    throw new DshError(
      'INVALID_ARGUMENT',
      `compose config "workspace" is ${workspace}, which is not an existing directory on the remote machine; create it there or pass another.`,
      { data: { field: 'workspace' } },
    );
  }
  const made = await world.run([
    'sh',
    '-c',
    `${RUN_MARK}\n${SWEEP_DEAD_RUNS}\n${MAKE_RUN}`,
    'dsh-prepare',
    place.spillDir,
    NO_EDITOR_SCRIPT,
    place.editor,
    place.root,
    String(world.info.pid),
    String(world.info.hostname ?? ''),
  ]);
  if (made.exitCode !== 0) {
    throw new DshError(
      'WORLD_UNAVAILABLE',
      `The output directory ${place.spillDir} cannot be made on the remote: ${made.text.trim()}; give config.output.dir a writable path there.`,
    );
  }
}

/**
 * The mark of this server's run directories: `$6` (the host's name) and its pid namespace, so
 * that servers in other containers sharing the root, whose pids mean nothing here, are told
 * apart. Empty (nothing is swept) when the host has no name to give.
 */
const RUN_MARK = 'm=; [ -n "$6" ] && m="$6:$(readlink /proc/self/ns/pid 2>/dev/null)"';
/**
 * Removes the run directories of runtime servers that are gone from the remote (a channel lost
 * before teardown): only `$4/run-<pid>-<hex>` directories whose `.dsh-run` holds this server's
 * mark, and never this server's own (`$5`). A pid is gone when /proc lacks it or shows a zombie;
 * without /proc, when `kill -0` cannot reach it.
 */
const SWEEP_DEAD_RUNS = [
  'for d in "$4"/run-*-*; do',
  '  [ -n "$m" ] && [ -d "$d" ] && [ -f "$d/.dsh-run" ] || continue',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions
  '  n=${d##*/}; p=${n#run-}; p=${p%%-*}; s=${n#run-"$p"-}',
  // A directory a remade world took over names the server that holds it now.
  '  [ -f "$d/.dsh-pid" ] && p=$(cat "$d/.dsh-pid" 2>/dev/null)',
  "  case $p in ''|*[!0-9]*) continue ;; esac",
  "  case $s in ''|*[!0-9a-f]*) continue ;; esac",
  '  [ "$p" = "$5" ] && continue',
  '  [ "$(cat "$d/.dsh-run" 2>/dev/null)" = "$m" ] || continue',
  '  if [ -d /proc/self ]; then',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions
  '    if st=$(cat "/proc/$p/stat" 2>/dev/null); then st=${st##*) }; case $st in Z*) ;; *) continue ;; esac; fi',
  '  else kill -0 "$p" 2>/dev/null && continue; fi',
  '  rm -rf -- "$d"',
  'done',
].join('\n');
/** Makes the spill directory `$1` with its run directory's mark and its server's pid (`$5`), and writes the stand-in editor `$2` to `$3`, private to the user. */
const MAKE_RUN =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions
  'umask 077 && mkdir -p -- "$1" "${3%/*}" && printf %s "$m" > "${1%/*}/.dsh-run" && printf %s "$5" > "${1%/*}/.dsh-pid" && printf %s "$2" > "$3" && chmod 700 "$3"';
