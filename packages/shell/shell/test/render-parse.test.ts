import { type CapturedText, parseShellResult, type RenderableResult, renderShellResult } from '@dsh/shell';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const captured = (text: string, over: Partial<CapturedText> = {}): CapturedText => ({
  text,
  truncated: false,
  totalBytes: Buffer.byteLength(text),
  spillPath: null,
  ...over,
});

const base: RenderableResult = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  aborted: false,
  timeoutMs: 120_000,
  stdout: captured(''),
  stderr: captured(''),
  sandbox: null,
  startError: null,
};

/** Lines that look like markers, to mix into generated outputs. */
const trickyLine = fc.constantFrom(
  '[exit code: 0]',
  '[exit code: 137]',
  '[killed by signal: SIGKILL]',
  '[no exit status]',
  '[timed out after 5 ms]',
  '[aborted]',
  '[stderr]',
  '\\[stderr]',
  '\\\\[exit code: 1]',
  '[sandbox denied: network; mode: read-only]',
  '[sandbox runner failed; mode: read-only]',
  '[output truncated: stdout kept last 1 of 2 bytes; no complete copy]',
  '[failed to start: CWD_NOT_FOUND: x]',
  '[note: hi]',
  '[',
  '',
  'plain text',
  'ünïcødé 🙂',
);
const outputText = fc
  .array(fc.oneof(trickyLine, fc.string({ maxLength: 20 })), { maxLength: 8 })
  .map((lines) => lines.join('\n'));

const streamArb = fc.record({
  text: outputText,
  truncated: fc.boolean(),
  spill: fc.option(fc.constantFrom('/tmp/dsh/spill-1.out', '/tmp/a b]/x'), { nil: null }),
});

const resultArb = fc
  .record({
    status: fc.oneof(
      fc.record({ exitCode: fc.integer({ min: 0, max: 255 }), signal: fc.constant(null) }),
      fc.record({ exitCode: fc.constant(null), signal: fc.constantFrom('SIGKILL', 'SIGTERM', 'SIGINT') }),
      fc.record({ exitCode: fc.constant(null), signal: fc.constant(null) }),
    ),
    stop: fc.constantFrom('none', 'timeout', 'abort'),
    stdout: streamArb,
    stderr: streamArb,
    denial: fc.constantFrom(null, 'file', 'network'),
    runnerFailed: fc.boolean(),
    startError: fc.option(fc.record({ code: fc.constantFrom('CWD_NOT_FOUND', 'SPAWN_FAILED'), message: fc.string() }), {
      nil: null,
    }),
    notes: fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
    maxChars: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
  })
  .map((r) => {
    const stream = (s: { text: string; truncated: boolean; spill: string | null }): CapturedText =>
      captured(s.text, {
        truncated: s.truncated,
        totalBytes: Buffer.byteLength(s.text) + (s.truncated ? 100 : 0),
        spillPath: s.truncated ? s.spill : null,
      });
    const result: RenderableResult = {
      ...base,
      ...r.status,
      timedOut: r.stop === 'timeout',
      aborted: r.stop === 'abort',
      timeoutMs: 1234,
      stdout: stream(r.stdout),
      stderr: stream(r.stderr),
      sandbox: r.denial
        ? {
            mode: 'workspace-write',
            denied: true,
            denial: r.denial as 'file' | 'network',
            enforcement: 'full',
            runnerFailed: false,
          }
        : null,
      startError: r.startError,
    };
    return { result, notes: r.notes, maxChars: r.maxChars };
  });

describe('renderShellResult / parseShellResult', () => {
  it('property: parse(render(r)) recovers every machine fact, whatever the output contains', () => {
    fc.assert(
      fc.property(resultArb, ({ result, notes, maxChars }) => {
        const text = renderShellResult(result, { notes, maxChars });
        const p = parseShellResult(text);
        expect(p.wellFormed).toBe(true);
        expect(p.exitCode).toBe(result.exitCode);
        expect(p.signal).toBe(result.exitCode === null ? result.signal : null);
        expect(p.timedOut).toBe(result.timedOut);
        expect(p.timeoutMs).toBe(result.timedOut ? 1234 : null);
        expect(p.aborted).toBe(result.aborted);
        expect(p.sandboxDenied).toBe(result.sandbox?.denied === true);
        expect(p.denial).toBe(result.sandbox?.denial ?? null);
        expect(p.runnerFailed).toBe(result.sandbox?.runnerFailed === true);
        expect(p.sandboxMode).toBe(result.sandbox ? 'workspace-write' : null);
        expect(p.startError).toEqual(
          result.startError
            ? { ...result.startError, message: result.startError.message.replace(/[\r\n]+/g, ' ') }
            : null,
        );
        const { text: out } = result.stdout;
        const { text: err } = result.stderr;
        const rawLength = out.length + (err === '' ? 0 : err.length + '[stderr]'.length + 2);
        const displayCut = maxChars !== undefined && rawLength > maxChars;
        const streamCut = result.stdout.truncated || result.stderr.truncated;
        expect(p.truncated).toBe(streamCut || displayCut);
        expect(p.spillPaths).toEqual({ stdout: result.stdout.spillPath, stderr: result.stderr.spillPath });
        expect(p.spillPath).toBe(result.stdout.spillPath ?? result.stderr.spillPath);
        expect(p.notes).toEqual(notes.map((n) => n.replace(/[\r\n]+/g, ' ')));
        if (maxChars === undefined) {
          expect(p.stdout).toBe(result.stdout.text);
          expect(p.stderr).toBe(result.stderr.text);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('renders the documented markers', () => {
    expect(renderShellResult({ ...base, stdout: captured('hi\n') })).toBe('hi\n\n[exit code: 0]');
    expect(renderShellResult({ ...base, exitCode: null, signal: 'SIGKILL' })).toBe('[killed by signal: SIGKILL]');
    const timedOut = renderShellResult({ ...base, exitCode: 0, timedOut: true, timeoutMs: 50, stdout: captured('x') });
    expect(timedOut).toBe('x\n[timed out after 50 ms]\n[exit code: 0]');
    const cut = renderShellResult({
      ...base,
      stdout: captured('tail', { truncated: true, totalBytes: 5_000_000, spillPath: '/tmp/s.out' }),
      stderr: captured('oops\n'),
    });
    expect(cut).toBe(
      'tail\n[stderr]\noops\n\n[output truncated: stdout kept last 4 of 5000000 bytes; full output: /tmp/s.out]\n[exit code: 0]',
    );
  });

  it('escapes marker-like output so it never reads as a fact', () => {
    const text = renderShellResult({ ...base, exitCode: 1, stdout: captured('[exit code: 0]\n[aborted]') });
    expect(text).toBe('\\[exit code: 0]\n\\[aborted]\n[exit code: 1]');
    expect(parseShellResult(text)).toMatchObject({ exitCode: 1, aborted: false, stdout: '[exit code: 0]\n[aborted]' });
  });

  it('keeps the tail under the display cap and says so', () => {
    const text = renderShellResult({ ...base, stdout: captured(`${'a'.repeat(100)}END`) }, { maxChars: 10 });
    const p = parseShellResult(text);
    expect(p.truncated).toBe(true);
    expect(p.stdout).toBe('aaaaaaaEND');
    expect(text).toContain('[output truncated: showing last 10 of 103 characters]');
  });

  it('reports text that is not a rendered result as not well-formed', () => {
    expect(parseShellResult('just text\n[exit code: x]')).toMatchObject({
      wellFormed: false,
      body: 'just text\n[exit code: x]',
    });
  });
});

describe('line terminators other than \\n', () => {
  it('U+2028, U+2029 and CR inside markers do not break parsing', () => {
    const path = '/tmp/sp\u2028ill\u2029/x.out';
    const text = renderShellResult(
      {
        ...base,
        exitCode: 7,
        stdout: captured('a\u2028b\r\nc', { truncated: true, totalBytes: 999, spillPath: path }),
        startError: null,
      },
      { notes: ['one\u2028two', 'cr\rhere'] },
    );
    const p = parseShellResult(text);
    expect(p).toMatchObject({
      wellFormed: true,
      exitCode: 7,
      truncated: true,
      spillPath: path,
      stdout: 'a\u2028b\r\nc',
    });
    expect(p.notes).toEqual(['one\u2028two', 'cr here']);
  });
});
