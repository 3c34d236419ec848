/**
 * `parseShellResult`: recovers the machine facts from a rendered result (the persisted form).
 */
import { isMarkerLine, type Marker, parseMarker, RANKS, STDERR_LINE, unescapeBody } from './markers.js';

/** Facts recovered from a rendered result. */
export interface ParsedShellResult {
  /** False when the text does not end in a status marker (not a rendered result); then `body` is the text. */
  wellFormed: boolean;
  /** Text above the markers: stdout, then the `[stderr]` section. */
  body: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The deadline in the timeout marker, when there is one. */
  timeoutMs: number | null;
  /** Processes the command left running that were ended when it returned. */
  leftover: number;
  aborted: boolean;
  /** Any output was cut: a stream's tail was kept, or the display cap applied. */
  truncated: boolean;
  /** stdout's complete copy if kept, else stderr's, else null. */
  spillPath: string | null;
  spillPaths: { stdout: string | null; stderr: string | null };
  sandboxDenied: boolean;
  denial: 'file' | 'network' | 'syscall' | null;
  /** What was refused, when the marker names it (a path, a system call). */
  denialDetail: string | null;
  /** A world limit the run hit. */
  sandboxLimit: 'pids' | 'memory' | null;
  /** The sandbox mode named by a sandbox marker (how a model learns the mode in force). */
  sandboxMode: string | null;
  /** The sandbox runner failed before the command ran. */
  runnerFailed: boolean;
  startError: { code: string; message: string } | null;
  notes: string[];
  /** The trailer's marker lines, as rendered, in order (e.g. `[exit code: 0]`); empty when not well formed. */
  markerLines: string[];
}

/** Reads the trailer from the end; returns its markers (in order) and the index where it starts. */
function readTrailer(lines: string[]): { markers: Marker[]; start: number } {
  const markers: Marker[] = [];
  let rank: number = Number.POSITIVE_INFINITY;
  let i = lines.length - 1;
  for (; i >= 0; i--) {
    const line = lines[i] as string;
    if (!isMarkerLine(line)) break;
    const marker = parseMarker(line);
    if (!marker) break;
    const r = RANKS[marker.kind];
    if (markers.length === 0 && marker.kind !== 'status') break;
    if (!(r < rank || (r === RANKS.note && rank === RANKS.note))) break;
    rank = r;
    markers.unshift(marker);
  }
  return { markers, start: i + 1 };
}

/** Parses a text made by `renderShellResult`. Never throws. */
export function parseShellResult(text: string): ParsedShellResult {
  const lines = text.split('\n');
  const { markers, start } = readTrailer(lines);
  const parsed: ParsedShellResult = {
    wellFormed: markers.length > 0,
    body: text,
    stdout: text,
    stderr: '',
    exitCode: null,
    signal: null,
    timedOut: false,
    timeoutMs: null,
    leftover: 0,
    aborted: false,
    truncated: false,
    spillPath: null,
    spillPaths: { stdout: null, stderr: null },
    sandboxDenied: false,
    denial: null,
    denialDetail: null,
    sandboxLimit: null,
    sandboxMode: null,
    runnerFailed: false,
    startError: null,
    notes: [],
    markerLines: [],
  };
  if (!parsed.wellFormed) return parsed;
  parsed.markerLines = lines.slice(start);
  const bodyLines = lines.slice(0, start);
  const split = bodyLines.indexOf(STDERR_LINE);
  parsed.body = unescapeBody(bodyLines.join('\n'));
  parsed.stdout = split < 0 ? parsed.body : unescapeBody(bodyLines.slice(0, split).join('\n'));
  parsed.stderr = split < 0 ? '' : unescapeBody(bodyLines.slice(split + 1).join('\n'));
  for (const m of markers) {
    switch (m.kind) {
      case 'note':
        parsed.notes.push(m.text);
        break;
      case 'stdoutTruncated':
      case 'stderrTruncated':
        parsed.truncated = true;
        parsed.spillPaths[m.kind === 'stdoutTruncated' ? 'stdout' : 'stderr'] = m.spillPath;
        break;
      case 'displayTruncated':
        parsed.truncated = true;
        break;
      case 'leftover':
        parsed.leftover = m.count;
        break;
      case 'timedOut':
        parsed.timedOut = true;
        parsed.timeoutMs = m.ms;
        break;
      case 'aborted':
        parsed.aborted = true;
        break;
      case 'sandboxDenied':
        parsed.sandboxDenied = true;
        parsed.denial = m.denial;
        parsed.denialDetail = m.detail;
        parsed.sandboxMode = m.mode;
        break;
      case 'sandboxLimit':
        parsed.sandboxLimit = m.limit;
        break;
      case 'runnerFailed':
        parsed.runnerFailed = true;
        parsed.sandboxMode = m.mode;
        break;
      case 'startError':
        parsed.startError = { code: m.code, message: m.message };
        break;
      case 'status':
        parsed.exitCode = m.exitCode;
        parsed.signal = m.signal;
        break;
    }
  }
  parsed.spillPath = parsed.spillPaths.stdout ?? parsed.spillPaths.stderr;
  return parsed;
}
