/**
 * Option parsers shared by the `dsh` subcommands (commander turns their throws into usage errors).
 */
import { isAbsolute, resolve } from 'node:path';
import { SANDBOX_MODES, type SandboxMode } from '@dsh/sandbox';
import { InvalidArgumentError } from 'commander';
import { PRESETS, type PresetName } from '../presets.js';

/** A sandbox mode. */
export function sandboxMode(value: string): SandboxMode {
  if (!(SANDBOX_MODES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${SANDBOX_MODES.join(', ')}`);
  }
  return value as SandboxMode;
}

/** A preset name. */
export function presetName(value: string): PresetName {
  if (!(PRESETS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${PRESETS.join(', ')}`);
  return value as PresetName;
}

/** A positive integer of milliseconds. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError('expected a positive integer number of milliseconds');
  }
  return n;
}

/** A directory path, made absolute against the current directory. */
export function directory(value: string): string {
  if (value === '') throw new InvalidArgumentError('expected a directory');
  return isAbsolute(value) ? value : resolve(value);
}
