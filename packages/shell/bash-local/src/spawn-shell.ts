/**
 * What foreground and background runs share: the spawn spec of `bash -c`, the sandbox gate,
 * and turning a collected stream into `CapturedText`.
 */
import { DshError } from '@dsh/core';
import type { Confinement, RunEvidence, Sandbox, SandboxFacts } from '@dsh/sandbox';
import type { CapturedText, ShellExecSpec } from '@dsh/shell';
import type { OutputReader, SpawnSpec } from '@dsh/subprocess';

/**
 * The confinement of a run: null when it runs unconfined (no sandbox asked, or
 * danger-full-access); a confined command line otherwise. A restricted mode never runs
 * unconfined.
 * @throws DshError `SANDBOX_UNAVAILABLE` when a restricted mode has no working fence.
 */
export function confinementFor(spec: ShellExecSpec, bash: string, sandbox: Sandbox | undefined): Confinement | null {
  const policy = spec.sandbox;
  if (!policy || policy.mode === 'danger-full-access') return null;
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
  return sandbox.confine([bash, '-c', spec.command], policy);
}

/** The sandbox facts of a finished run (null when no sandbox was asked for). */
export function sandboxFacts(
  spec: ShellExecSpec,
  sandbox: Sandbox | undefined,
  confinement: Confinement | null,
  evidence: RunEvidence,
): SandboxFacts | null {
  if (!spec.sandbox) return null;
  if (!confinement || !sandbox) {
    return { mode: spec.sandbox.mode, denied: false, denial: null, enforcement: 'full', runnerFailed: false };
  }
  return sandbox.classify(evidence, spec.sandbox, confinement);
}

/** The subprocess spec of `bash -c command` (confined when asked): collected streams with spill, `dshEnv` over `env`. */
export function bashSpawnSpec(
  spec: ShellExecSpec,
  bash: string,
  signal: AbortSignal,
  confinement: Confinement | null,
): SpawnSpec {
  const spill = { dir: spec.spillDir, maxBytes: spec.maxSpillBytes };
  return {
    argv: confinement ? confinement.argv : [bash, '-c', spec.command],
    cwd: spec.workdir,
    env: { ...spec.env, ...spec.dshEnv },
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
  return { text: read.text, truncated: read.lossy, totalBytes: reader.totalBytes, spillPath: read.spillPath };
}
