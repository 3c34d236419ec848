/**
 * The `shell` terminal backend: a persistent, interactive bash on a PTY from ctx.subprocess.
 */
import { DshError } from '@dsh/core';
import type { Sandbox, SandboxMode, SandboxPolicyService } from '@dsh/sandbox';
import { localeEntries, type SubprocessRuntime } from '@dsh/subprocess';
import type { OpenRequest, TerminalBackend, TerminalSession } from '@dsh/terminal';
import { type BashTerminalConfig, type ResolvedBashTerminalConfig, resolveTerminalConfig } from './config.js';
import { newNonce, writeRcFile } from './rcfile.js';
import { BashSession } from './session.js';
import { loadXterm } from './xterm-loader.js';

/** Backend type name of the persistent bash. */
export const SHELL_BACKEND = 'shell';

/** Opens persistent bash sessions. */
export class BashTerminalBackend implements TerminalBackend {
  readonly type = SHELL_BACKEND;
  readonly config: ResolvedBashTerminalConfig;

  /** @throws DshError `INVALID_ARGUMENT` for a bad config. */
  constructor(
    private readonly subprocess: () => SubprocessRuntime,
    config: BashTerminalConfig = {},
    /** The sandbox policy and fence, when mounted: restricted modes run the shell inside the fence. */
    private readonly fence: () => {
      policy?: SandboxPolicyService;
      sandbox?: Sandbox;
      defaultMode?: SandboxMode;
    } = () => ({}),
  ) {
    this.config = resolveTerminalConfig(config);
  }

  /**
   * Starts bash and waits for its first prompt; only then is the session returned.
   * @throws DshError `TERMINAL_START_FAILED` (cleaned up), `TERMINAL_CLEANUP_FAILED` (could not clean up),
   *   or the substrate's start error (`CWD_NOT_FOUND`, `PTY_UNAVAILABLE`, …).
   */
  async open(request: OpenRequest): Promise<TerminalSession> {
    const { policy, sandbox, defaultMode } = this.fence();
    const resolved =
      policy?.resolve(request.owner) ??
      (defaultMode ? { mode: defaultMode, writableRoots: [this.config.cwd], network: false } : undefined);
    const confined = resolved !== undefined && resolved.mode !== 'danger-full-access';
    if (confined && !sandbox?.available()) {
      const why = sandbox ? sandbox.unavailableReason() : 'no sandbox is mounted';
      throw new DshError(
        'SANDBOX_UNAVAILABLE',
        `A terminal in sandbox mode "${resolved.mode}" needs a fence and there is none: ${why}.`,
        {
          data: { mode: resolved.mode },
        },
      );
    }
    const xterm = await loadXterm();
    const nonce = newNonce();
    // A restricted shell runs in the agent's world: inside the fence, with the world's pids; its
    // rc file is written in that same world.
    const host = this.subprocess();
    const runtime = confined && sandbox && resolved ? sandbox.world(resolved, host).runtime : host;
    const rc = await writeRcFile(runtime, nonce);
    const shellArgv = [this.config.bash, '--noprofile', '--rcfile', rc.path, '-i'];
    // The mode cannot change while this PTY lives: the fence is held until the session closes.
    const release = policy ? policy.fence(request.owner) : () => undefined;
    let handle: Awaited<ReturnType<SubprocessRuntime['spawnTerminal']>>;
    try {
      handle = await runtime.spawnTerminal({
        argv: shellArgv,
        cwd: request.cwd ?? this.config.cwd,
        env: { TERM: 'xterm-256color', ...localeEntries(), ...this.config.env },
        cols: request.cols,
        rows: request.rows,
        graceMs: this.config.graceMs,
      });
    } catch (error) {
      await rc.remove();
      release();
      throw error;
    }
    const session = new BashSession(
      handle,
      nonce,
      this.config,
      xterm,
      { cols: request.cols, rows: request.rows },
      release,
    );
    const ready = await session.firstPrompt(this.config.openTimeoutMs);
    await rc.remove(); // read at start-up; the nonce no longer needs to exist on disk
    if (ready) return session;
    const why = session.state() === 'exited' ? 'bash exited before its first prompt' : 'bash showed no prompt in time';
    try {
      await session.close();
    } catch (error) {
      throw new DshError(
        'TERMINAL_CLEANUP_FAILED',
        `${why}, and its processes could not be cleaned up: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
    throw new DshError('TERMINAL_START_FAILED', `${why}; check the bash program and the working directory.`);
  }
}
