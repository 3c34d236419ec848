/**
 * The sandbox world (issue 9): the same truth inside it as outside. A parity table runs the
 * same commands confined (workspace-write) and unconfined (danger-full-access) and asserts the
 * same facts; then what a world adds: paths in notes work in the next confined call, an agent's
 * background server is reachable from its own next call and from no other agent's, and
 * leftovers are ended with a note that parses back.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compose, type Dsh, parseShellResult } from 'dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, waitFor } from '../../../test/support.js';

let root: string;
const made: Dsh[] = [];

beforeAll(() => {
  // Not under /tmp: a confined command sees a fresh /tmp of its world.
  root = mkdtempSync(join('/var/tmp', 'dsh-world-'));
});
afterAll(async () => {
  await Promise.all(made.map((d) => d.dispose()));
  rmSync(root, { recursive: true, force: true });
});

async function make(mode: 'workspace-write' | 'danger-full-access'): Promise<Dsh> {
  const workspace = mkdtempSync(join(root, `${mode}-`));
  const dsh = await compose({ preset: 'base', config: { workspace, sandbox: { mode }, shell: { graceMs: 300 } } });
  made.push(dsh);
  return dsh;
}

/** The facts parity compares: every marker's, plus the output body. */
function factsOf(text: string) {
  const p = parseShellResult(text);
  return {
    exitCode: p.exitCode,
    signal: p.signal,
    timedOut: p.timedOut,
    aborted: p.aborted,
    truncated: p.truncated,
    leftover: p.leftover,
    body: p.body.replace(/\/var\/tmp\/dsh-world-[^/]+\/[a-z-]+-[A-Za-z0-9]+/g, 'WS'),
  };
}

const PARITY: [string, string, number?][] = [
  ['exit status', 'exit 3'],
  ['stdout and stderr', 'echo out; echo err >&2'],
  ['SIGKILL to the shell', 'kill -9 $$'],
  ['SIGSEGV to the shell', 'kill -SEGV $$'],
  ['SIGINT to the shell', 'kill -INT $$'],
  ['SIGTERM to the shell', 'kill -TERM $$'],
  // bash may report the killed `sleep` ("Terminated") depending on who the signal reaches first: not a fact.
  [
    'a trapped TERM at the deadline',
    "trap 'echo trapped; exit 0' TERM; echo started; { while :; do sleep 0.05; done; } 2>/dev/null",
    500,
  ],
  ['a plain timeout', 'echo before; sleep 30', 500],
  ['stdin at EOF', 'read x; echo "read=$?"'],
  ['no controlling terminal', 'cat /dev/tty 2>/dev/null; echo "tty=$?"'],
  ['a leftover background child', 'sleep 30 & echo started'],
  ['a setsid escapee', "setsid sh -c 'sleep 30' & echo escaped"],
  ['a nohup child', 'nohup sleep 30 >/dev/null 2>&1 & echo nohup'],
  ['a large stdout (truncated, spilled)', "head -c 3000000 /dev/zero | tr '\\0' a | fold -w 100"],
  ['binary output', "printf 'a\\0b\\377c\\n'"],
  ['UTF-8 output', "printf 'caf\\303\\251 \\342\\202\\254\\n'"],
  ['the working directory', 'pwd'],
  [
    'environment hygiene',
    'echo "editor=$GIT_EDITOR pager=$PAGER prompt=$GIT_TERMINAL_PROMPT" | sed "s#/[^ ]*/dsh-no-editor#EDITOR#"',
  ],
  ['a missing program', 'no-such-program-dsh'],
  ['writes inside the workspace', 'echo hi > inside.txt && cat inside.txt'],
  ['reads of system files', 'head -c 4 /etc/hostname >/dev/null && echo ok'],
];

describe('parity: the same facts confined and unconfined', () => {
  let confined: Dsh;
  let open: Dsh;
  beforeAll(async () => {
    confined = await make('workspace-write');
    open = await make('danger-full-access');
  });

  it.each(PARITY)('%s', async (_what, command, timeout) => {
    const args = { command, ...(timeout ? { timeout_ms: timeout } : {}) };
    const [a, b] = await Promise.all([
      confined.tools.call(confined.createAgent('c'), 'bash', args),
      open.tools.call(open.createAgent('o'), 'bash', args),
    ]);
    const fa = factsOf(a.text);
    const fb = factsOf(b.text);
    // Saved-output paths differ by composition; everything else must be equal.
    const strip = (f: ReturnType<typeof factsOf>) => ({ ...f, body: f.body.replace(/\/\S*\/spill\/\S+/g, 'FILE') });
    expect(strip(fa)).toEqual(strip(fb));
    expect(a.data.sandbox).toMatchObject({ mode: 'workspace-write', runnerFailed: false });
  });

  it('the path a note names is readable by the next confined call, complete', async () => {
    const agent = confined.createAgent('reader');
    const big = await confined.tools.call(agent, 'bash', { command: "head -c 3000000 /dev/zero | tr '\\0' a" });
    const spill = parseShellResult(big.text).spillPath as string;
    expect(spill).toBeTruthy();
    const next = await confined.tools.call(agent, 'bash', { command: `wc -c < ${spill}` });
    expect(next.text).toBe('3000000\n\n[exit code: 0]');
  });
});

describe('worlds belong to their agent', () => {
  it("an agent's background server is reachable from its own next call and not from another agent's", async () => {
    const dsh = await make('workspace-write');
    const a = dsh.createAgent('a');
    const b = dsh.createAgent('b');
    const serve =
      "exec python3 -c \"import socket;s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);s.bind(('127.0.0.1',8765));s.listen();print('listening',flush=True);[c.sendall(b'hello from a\\\\n') or c.close() for c,_ in iter(s.accept,None)]\"";
    const started = await dsh.tools.call(a, 'bash', { command: serve, run_in_background: true });
    const jobId = started.data.job_id as string;
    await waitFor(
      async () => (await dsh.tools.call(a, 'job_output', { job_id: jobId })).text.includes('listening'),
      'the server',
    );
    const fromA = await dsh.tools.call(a, 'bash', {
      command:
        'python3 -c "import socket;s=socket.create_connection((\'127.0.0.1\',8765));print(s.recv(100).decode())"',
    });
    expect(fromA.text).toContain('hello from a');
    const fromB = await dsh.tools.call(b, 'bash', {
      command: 'python3 -c "import socket;socket.create_connection((\'127.0.0.1\',8765))"',
    });
    expect(parseShellResult(fromB.text).exitCode).not.toBe(0);
    expect(fromB.text).toMatch(/Connection refused/);
    await dsh.tools.call(a, 'job_kill', { job_id: jobId });
  });

  it('leftovers end with their call inside the world, with a note that names the count and run_in_background', async () => {
    const dsh = await make('workspace-write');
    const agent = dsh.createAgent('l');
    const r = await dsh.tools.call(agent, 'bash', { command: 'sleep 30 & setsid sleep 30 & echo two' });
    const parsed = parseShellResult(r.text);
    expect(parsed.leftover).toBe(2);
    expect(parsed.notes.join(' ')).toMatch(/2 processes the command left running were ended.*run_in_background/);
    const after = await dsh.tools.call(agent, 'bash', { command: 'pgrep -c sleep || true' });
    expect(after.text.split('\n')[0]).toBe('0');
  });

  it('a world whose runner fails is told by the channel as a runner failure, and the next call gets a new world', async () => {
    const workspace = mkdtempSync(join(root, 'lost-'));
    const dsh = await compose({ config: { workspace, sandbox: { mode: 'workspace-write' } } });
    try {
      const agent = dsh.createAgent('w');
      const first = await dsh.tools.call(agent, 'bash', { command: 'echo $PPID' });
      expect(parseShellResult(first.text).exitCode).toBe(0);
      // The world's server is the parent of every command in it, and out of their reach.
      const refused = await dsh.tools.call(agent, 'bash', { command: 'kill -9 $PPID' });
      expect(parseShellResult(refused.text).exitCode).not.toBe(0);
      // Ended from the host: the call in flight is a runner failure.
      const pending = dsh.tools.call(agent, 'bash', { command: 'sleep 37.25' });
      await waitFor(() => spawnSync('pgrep', ['-f', 'sleep 37.25']).status === 0, 'the command running');
      const world = await waitFor(() => {
        const found = spawnSync('pgrep', ['-f', workspace], { encoding: 'utf8' }).stdout.trim();
        return found === '' ? null : found.split('\n').map(Number);
      }, 'the world');
      for (const pid of world) if (pid > 1) process.kill(pid, 'SIGKILL');
      const lost = parseShellResult((await pending).text);
      expect(lost.runnerFailed || lost.startError !== null).toBe(true);
      const again = await dsh.tools.call(agent, 'bash', { command: 'echo back' });
      expect(again.text).toBe('back\n\n[exit code: 0]');
    } finally {
      await dsh.dispose();
    }
  });
});

describe('the world ends with the composition', () => {
  it('dispose ends every world and leaves no process of it', async () => {
    const workspace = mkdtempSync(join(root, 'end-'));
    const dsh = await compose({ config: { workspace } });
    const r = await dsh.tools.call(dsh.createAgent('e'), 'bash', { command: 'sleep 60', run_in_background: true });
    expect(r.isError).toBe(false);
    const worlds = (dsh.ctx.sandbox as unknown as { worldsInUse(): unknown[] }).worldsInUse();
    expect(worlds).toHaveLength(1);
    // The world's bubblewrap binds the workspace: its command line names it.
    const ofWorld = (): number[] => {
      const found = spawnSync('pgrep', ['-f', workspace], { encoding: 'utf8' }).stdout.trim();
      return found === '' ? [] : found.split('\n').map(Number);
    };
    const pids = ofWorld();
    expect(pids.length).toBeGreaterThan(0);
    await dsh.dispose();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(ofWorld()).toEqual([]);
  });
});
