/**
 * `LocalBashExecutor`: ctx.shell over ctx.subprocess, running `bash -c`.
 */
import { dirname, join } from 'node:path';
import { DshError } from '@dsh/core';
import type { Sandbox } from '@dsh/sandbox';
import {
  type ShellExecRequest,
  type ShellExecResult,
  type ShellExecSpec,
  ShellExecutor,
  type ShellProcess,
  type ShellStartOptions,
} from '@dsh/shell';
import type { SubprocessRuntime } from '@dsh/subprocess';
import { LocalShellProcess } from './background.js';
import { type LocalBashConfig, type ResolvedBashConfig, resolveBashConfig } from './config.js';
import { runForeground } from './foreground.js';
import { noEditorCommand, nonInteractiveEnv } from './non-interactive.js';
import { resolveRequest } from './resolve-request.js';

/** What the executor stands on. */
export interface LocalBashDeps {
  /** The process substrate (ctx.subprocess). */
  subprocess: SubprocessRuntime;
  /** The fence for restricted modes (ctx.sandbox). @default none: restricted modes refuse to run */
  sandbox?: Sandbox;
}

/** Runs one-shot bash commands locally. */
export class LocalBashExecutor extends ShellExecutor {
  /** The resolved configuration (every default filled). */
  readonly config: ResolvedBashConfig;
  private readonly subprocess: SubprocessRuntime;
  private readonly sandbox: Sandbox | undefined;
  /** The non-interactive entries every command gets (under its own env). */
  private readonly managedEnv: Readonly<Record<string, string>>;

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
    this.sandbox = deps.sandbox;
    this.config = resolveBashConfig(config);
    this.managedEnv = nonInteractiveEnv(
      this.config.editor ?? noEditorCommand(join(dirname(this.config.spillDir), 'bin')),
    );
  }

  /** @throws DshError `INVALID_ARGUMENT` naming the field. */
  resolve(request: ShellExecRequest): ShellExecSpec {
    return resolveRequest(request, this.config);
  }

  /**
   * @throws DshError `SANDBOX_UNAVAILABLE`, or bash's own start failure (as rejections).
   */
  run(spec: ShellExecSpec, options: { signal?: AbortSignal } = {}): Promise<ShellExecResult> {
    return runForeground(this.subprocess, spec, this.config.bash, options.signal, this.sandbox, this.managedEnv);
  }

  /** Never throws for a missing fence: the process then settles failed with `SANDBOX_UNAVAILABLE`. */
  start(spec: ShellExecSpec, options: ShellStartOptions = {}): ShellProcess {
    return new LocalShellProcess(this.subprocess, spec, this.config.bash, this.sandbox, options, this.managedEnv);
  }

  /** The fence in use, if any (for dumpConfig). */
  get fence(): Sandbox | undefined {
    return this.sandbox;
  }
}
