/**
 * What every run shares: where it is spawned (the host runtime, or the world of its sandbox),
 * the spawn spec of `bash -c`, its sandbox facts, and turning a collected stream into
 * `CapturedText`.
 */
import { DshError } from '@dsh/core';
import type { RunEvidence, Sandbox, SandboxFacts, World } from '@dsh/sandbox';
import type { CapturedText, ShellExecSpec } from '@dsh/shell';
import type { OutputReader, SpawnSpec, SubprocessRuntime } from '@dsh/subprocess';

/**
 * Where `spec` runs: on `host` when it asks for no sandbox (or danger-full-access), else in the
 * world of its sandbox. A restricted mode never runs unconfined.
 * @throws DshError `SANDBOX_UNAVAILABLE` when a restricted mode has no working fence.
 */
export function placeOf(
  spec: ShellExecSpec,
  sandbox: Sandbox | undefined,
  host: SubprocessRuntime,
): { runtime: SubprocessRuntime; world: World | null } {
  const policy = spec.sandbox;
  if (!policy || policy.mode === 'danger-full-access') return { runtime: host, world: null };
  const why = sandbox ? sandbox.unavailableReason() : 'no sandbox is mounted in this composition';
  if (!sandbox || why !== null) {
    throw new DshError(
      'SANDBOX_UNAVAILABLE',
      `Sandbox mode "${policy.mode}" needs a fence and there is none: ${why}.`,
      {
        data: { mode: policy.mode },
      },
    );
  }
  const world = sandbox.world(policy, host);
  return { runtime: world.runtime, world };
}

/** The sandbox facts of a finished run (null when no sandbox was asked for). */
export function sandboxFacts(
  spec: ShellExecSpec,
  sandbox: Sandbox | undefined,
  world: World | null,
  evidence: RunEvidence,
): SandboxFacts | null {
  if (!spec.sandbox) return null;
  if (!world || !sandbox) {
    return { mode: spec.sandbox.mode, denied: false, denial: null, enforcement: 'full', runnerFailed: false };
  }
  return sandbox.classify(evidence, spec.sandbox, world);
}

/**
 * The subprocess spec of `bash -c command`: collected streams with spill; the environment is
 * the managed non-interactive entries, then the request's `env`, then `dshEnv`.
 */
export function bashSpawnSpec(
  spec: ShellExecSpec,
  bash: string,
  signal: AbortSignal,
  managedEnv: Readonly<Record<string, string>>,
): SpawnSpec {
  const spill = { dir: spec.spillDir, maxBytes: spec.maxSpillBytes };
  return {
    argv: [bash, '-c', spec.command],
    cwd: spec.workdir,
    env: { ...managedEnv, ...spec.env, ...spec.dshEnv },
    stdin: spec.stdin === null ? { kind: 'ignore' } : { kind: 'bytes', data: spec.stdin },
    stdout: { kind: 'collect', maxBytes: spec.stdoutMaxBytes, spill },
    stderr: { kind: 'collect', maxBytes: spec.stderrMaxBytes, spill },
    graceMs: spec.graceMs,
    signal,
  };
}

/** The whole kept text of a collected stream, with its truncation facts. */
export function capture(reader: OutputReader | null): CapturedText {
  if (!reader) return { text: '', truncated: false, totalBytes: 0, spillPath: null };
  const read = reader.read(0);
  const captured: CapturedText = {
    text: read.text,
    truncated: read.lossy,
    totalBytes: reader.totalBytes,
    spillPath: read.spillPath,
    keptBytes: read.bytes,
  };
  if (read.invalidUtf8) captured.raw = reader.readBytes(0);
  if (reader.spillError) captured.spillError = reader.spillError;
  return captured;
}
