/**
 * The marker grammar of rendered shell results. A rendered result is
 *
 *   BODY "\n" TRAILER          (just TRAILER when BODY is empty)
 *
 * BODY is stdout, then (when stderr is non-empty) a line `[stderr]` and stderr; when stdout is
 * non-empty a "\n" always separates it from `[stderr]`. TRAILER is one line per fact, in this
 * order, each at most once; only the status line is always present:
 *
 *   [note: TEXT]                                                    zero or more
 *   [output truncated: stdout kept last K of T bytes; full output: PATH]
 *   [output truncated: stdout kept last K of T bytes; no complete copy]
 *   [output truncated: stderr kept last K of T bytes; …]            same two forms
 *   [output truncated: showing last K of T characters]              the display cap
 *   [leftover processes ended: N]                                   what the command left running
 *   [timed out after N ms]
 *   [aborted]
 *   [sandbox denied: file|network|syscall[ WHAT]; mode: MODE]      WHAT: the path or call, when named
 *   [sandbox limit: pids] | [killed: out of memory in the sandbox]  a world limit the run hit
 *   [sandbox runner failed; mode: MODE]
 *   [failed to start: CODE: MESSAGE]
 *   [exit code: N] | [killed by signal: SIGNAME] | [no exit status]
 *
 * Escaping keeps the grammar unambiguous: a body line that starts with zero or more `\` and
 * then a marker opening (`[exit code:`, `[stderr]`, …) gets one more leading `\`; parsing removes
 * it. So output that itself prints marker-like lines never changes the parsed facts.
 */

/** Marker openings; a body line starting with one of these (after backslashes) is escaped. */
const OPENINGS = [
  'note:',
  'output truncated:',
  'leftover processes ended:',
  'timed out after ',
  'aborted]',
  'sandbox denied:',
  'sandbox limit:',
  'killed: out of memory',
  'sandbox runner failed',
  'failed to start:',
  'exit code:',
  'killed by signal:',
  'no exit status]',
  'stderr]',
];
const MARKERISH = new RegExp(
  `^(\\\\*)\\[(?:${OPENINGS.map((o) => o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
);

/** Adds one backslash to every body line that could be read as a marker. */
export function escapeBody(text: string): string {
  if (!text.includes('[')) return text;
  return text
    .split('\n')
    .map((line) => (MARKERISH.test(line) ? `\\${line}` : line))
    .join('\n');
}

/** Reverses {@link escapeBody}. */
export function unescapeBody(text: string): string {
  if (!text.includes('[')) return text;
  return text
    .split('\n')
    .map((line) => {
      const m = MARKERISH.exec(line);
      return m && (m[1] as string).length > 0 ? line.slice(1) : line;
    })
    .join('\n');
}

/** True for a raw (unescaped) line that opens a marker. */
export function isMarkerLine(line: string): boolean {
  const m = MARKERISH.exec(line);
  return m !== null && (m[1] as string).length === 0;
}

/** The `[stderr]` section line. */
export const STDERR_LINE = '[stderr]';

/** Trailer line kinds, in their required order. */
export const RANKS = {
  note: 0,
  stdoutTruncated: 1,
  stderrTruncated: 2,
  displayTruncated: 3,
  leftover: 4,
  timedOut: 5,
  aborted: 6,
  sandboxDenied: 7,
  sandboxLimit: 8,
  runnerFailed: 9,
  startError: 10,
  status: 11,
} as const;

export type MarkerKind = keyof typeof RANKS;

/** One parsed trailer line. */
export type Marker =
  | { kind: 'note'; text: string }
  | { kind: 'stdoutTruncated' | 'stderrTruncated'; kept: number; total: number; spillPath: string | null }
  | { kind: 'displayTruncated'; kept: number; total: number }
  | { kind: 'leftover'; count: number }
  | { kind: 'timedOut'; ms: number }
  | { kind: 'aborted' }
  | { kind: 'sandboxDenied'; denial: 'file' | 'network' | 'syscall'; detail: string | null; mode: string }
  | { kind: 'sandboxLimit'; limit: 'pids' | 'memory' }
  | { kind: 'runnerFailed'; mode: string }
  | { kind: 'startError'; code: string; message: string }
  | { kind: 'status'; exitCode: number | null; signal: string | null };

const PATTERNS: [RegExp, (m: RegExpExecArray) => Marker][] = [
  [/^\[note: (.*)\]$/s, (m) => ({ kind: 'note', text: m[1] as string })],
  [
    /^\[output truncated: (stdout|stderr) kept last (\d+) of (\d+) bytes; (?:full output: (.+)|no complete copy)\]$/s,
    (m) => ({
      kind: m[1] === 'stdout' ? 'stdoutTruncated' : 'stderrTruncated',
      kept: Number(m[2]),
      total: Number(m[3]),
      spillPath: m[4] ?? null,
    }),
  ],
  [
    /^\[output truncated: showing last (\d+) of (\d+) characters\]$/,
    (m) => ({ kind: 'displayTruncated', kept: Number(m[1]), total: Number(m[2]) }),
  ],
  [/^\[leftover processes ended: (\d+)\]$/, (m) => ({ kind: 'leftover', count: Number(m[1]) })],
  [/^\[timed out after (\d+) ms\]$/, (m) => ({ kind: 'timedOut', ms: Number(m[1]) })],
  [/^\[aborted\]$/, () => ({ kind: 'aborted' })],
  [
    /^\[sandbox denied: (file|network|syscall)(?: ([^;\]\n]+))?; mode: ([a-z-]+)\]$/,
    (m) => ({
      kind: 'sandboxDenied',
      denial: m[1] as 'file' | 'network' | 'syscall',
      detail: m[2] ?? null,
      mode: m[3] as string,
    }),
  ],
  [/^\[sandbox limit: pids\]$/, () => ({ kind: 'sandboxLimit', limit: 'pids' })],
  [/^\[killed: out of memory in the sandbox\]$/, () => ({ kind: 'sandboxLimit', limit: 'memory' })],
  [/^\[sandbox runner failed; mode: ([a-z-]+)\]$/, (m) => ({ kind: 'runnerFailed', mode: m[1] as string })],
  [
    /^\[failed to start: ([A-Z0-9_]+): (.*)\]$/,
    (m) => ({ kind: 'startError', code: m[1] as string, message: m[2] as string }),
  ],
  [/^\[exit code: (-?\d+)\]$/, (m) => ({ kind: 'status', exitCode: Number(m[1]), signal: null })],
  [/^\[killed by signal: ([A-Z0-9]+)\]$/, (m) => ({ kind: 'status', exitCode: null, signal: m[1] as string })],
  [/^\[no exit status\]$/, () => ({ kind: 'status', exitCode: null, signal: null })],
];

/** Parses one trailer line, or null when it is not exactly a marker. */
export function parseMarker(line: string): Marker | null {
  for (const [re, build] of PATTERNS) {
    const m = re.exec(line);
    if (m) return build(m);
  }
  return null;
}

/**
 * Makes a text safe to sit inside a one-line marker: lines are split on "\n" only, and the
 * patterns match any other character (U+2028, U+2029 and lone "\r" included, via the `s` flag).
 */
export function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
