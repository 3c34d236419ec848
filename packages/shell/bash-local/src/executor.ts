/**
 * `LocalBashExecutor`: ctx.shell over ctx.subprocess, running `bash -c`.
 */
import { DshError } from '@dsh/core';
import {
  type ShellExecRequest,
  type ShellExecResult,
  type ShellExecSpec,
  ShellExecutor,
  type ShellProcess,
} from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { LocalShellProcess } from './background.js';
import { type LocalBashConfig, type ResolvedBashConfig, resolveBashConfig } from './config.js';
import { runForeground } from './foreground.js';
import { resolveRequest } from './resolve-request.js';
import { assertRunnable } from './spawn-shell.js';

/** What the executor stands on. */
export interface LocalBashDeps {
  /** The process substrate (ctx.subprocess). */
  subprocess: SubprocessRuntime;
}

/** Runs one-shot bash commands locally. */
export class LocalBashExecutor extends ShellExecutor {
  /** The resolved configuration (every default filled). */
  readonly config: ResolvedBashConfig;
  private readonly subprocess: SubprocessRuntime;

  /**
   * @param deps `subprocess` is required.
   * @param config every field optional; see {@link LocalBashConfig}.
   * @throws DshError `INVALID_ARGUMENT` for a missing dependency or a malformed config field.
   */
  constructor(deps: LocalBashDeps, config: LocalBashConfig = {}) {
    super();
    if (!deps?.subprocess || typeof deps.subprocess.spawn !== 'function') {
      throw new DshError('INVALID_ARGUMENT', 'LocalBashExecutor needs { subprocess } (a SubprocessRuntime).', {
        data: { field: 'subprocess' },
      });
    }
    this.subprocess = deps.subprocess;
    this.config = resolveBashConfig(config);
  }

  /** @throws DshError `INVALID_ARGUMENT` naming the field. */
  resolve(request: ShellExecRequest): ShellExecSpec {
    return resolveRequest(request, this.config);
  }

  /**
   * @throws DshError `SANDBOX_UNAVAILABLE`, or bash's own start failure (as rejections).
   */
  run(spec: ShellExecSpec, options: { signal?: AbortSignal } = {}): Promise<ShellExecResult> {
    return runForeground(this.subprocess, spec, this.config.bash, options.signal);
  }

  /** @throws DshError `SANDBOX_UNAVAILABLE`. */
  start(spec: ShellExecSpec): ShellProcess {
    assertRunnable(spec);
    return new LocalShellProcess(this.subprocess, spec, this.config.bash);
  }
}
