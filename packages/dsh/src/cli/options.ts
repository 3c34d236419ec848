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

/** A TCP port: an integer in [0, 65535] (0: a free one). */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535) throw new InvalidArgumentError('expected a port number in [0, 65535]');
  return n;
}

/** A host name or address to listen on. */
export function listenHost(value: string): string {
  if (!/^[A-Za-z0-9.:_-]+$/.test(value)) throw new InvalidArgumentError('expected a host name or an IP address');
  return value;
}

/** A directory path, made absolute against the current directory. */
export function directory(value: string): string {
  if (value === '') throw new InvalidArgumentError('expected a directory');
  return isAbsolute(value) ? value : resolve(value);
}

/**
 * A channel command line, split into words as a POSIX shell would (single and double quotes,
 * backslash escapes; no expansions): `'ssh -T host'` → `['ssh', '-T', 'host']`.
 */
export function connectArgv(value: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  const at = (i: number): string => value.charAt(i);
  for (let i = 0; i < value.length; i++) {
    const c = at(i);
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && '"\\$`'.includes(at(i + 1)) && i + 1 < value.length) word += at(++i);
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < value.length) {
      word += at(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new InvalidArgumentError(`unclosed ${quote} quote`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new InvalidArgumentError("expected a command such as 'ssh -T host'");
  return words;
}
