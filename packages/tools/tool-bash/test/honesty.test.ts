/**
 * What the model reads is true (issue 9): one-shot commands are non-interactive by construction,
 * a read that skipped output says so with the count, "all of it is in FILE" appears only when
 * FILE holds all of it, markers never contradict the text above them, display cuts fall on
 * line boundaries, and leftovers are noted.
 */
import { NO_EDITOR_MESSAGE } from '@dsh/bash-local';
import { parseShellResult } from '@dsh/shell';
import { describe, expect, it } from 'vitest';
import { rig, waitFor } from './helpers.js';

describe('non-interactive by construction', () => {
  it('git commit without -m fails at once with what to do; pagers are cat; git never prompts', async () => {
    const r = await rig();
    const res = await r.call('bash', {
      command: 'git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty; echo "status=$?"',
      timeout_ms: 20_000,
    });
    const p = parseShellResult(res.text);
    expect(p.timedOut).toBe(false);
    expect(p.stdout).toMatch(/status=1/);
    expect(p.stderr).toContain(NO_EDITOR_MESSAGE);
    const env = await r.call('bash', { command: 'echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"' });
    expect(env.text.split('\n')[0]).toBe('cat cat 0');
  });

  it('trusted env entries override the managed ones', async () => {
    const r = await rig();
    const shell = r.composition.ctx.get('shell');
    const out = await shell.run(
      shell.resolve({ command: 'echo "$EDITOR $PAGER"', env: { EDITOR: 'nano', PAGER: 'less' } }),
    );
    expect(out.stdout.text).toBe('nano less\n');
  });

  it('a program that still waits for input ends at its deadline, with a hint', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'vim -u NONE -N /dev/null', timeout_ms: 1_000 });
    const p = parseShellResult(res.text);
    expect(p.timedOut).toBe(true);
    expect(p.notes.join(' ')).toMatch(/waiting for input.*pipe, a heredoc or a file/);
  });
});

describe('lossy is said where the model reads it', () => {
  it('a flood read late says how many bytes were dropped, never claims a complete copy it lacks, and stays consistent after job_kill', async () => {
    const r = await rig({ maxOutputBytes: 64 * 1024, maxSpillBytes: 1024 * 1024 });
    const started = await r.call('bash', { command: 'yes', run_in_background: true });
    const jobId = started.data.job_id as string;
    const job = r.composition.ctx.get('jobs');
    await waitFor(() => {
      const info = job.info(r.agent, jobId);
      return info.state === 'running' ? true : null;
    }, 'running');
    await new Promise((res) => setTimeout(res, 300)); // let it outgrow the spill cap
    const out = await r.call('job_output', { job_id: jobId });
    expect(out.text).toMatch(
      /^\[note: \d+ bytes of output since your last read were dropped from memory; no complete copy was kept/,
    );
    expect(out.text).not.toMatch(/all of it is in/);
    const killed = await r.call('job_kill', { job_id: jobId });
    expect(killed.data.killed).toBe(true);
    const last = await r.call('job_output', { job_id: jobId });
    const markers = /kept last (\d+) of (\d+) bytes/.exec(last.text);
    expect(markers).not.toBeNull();
    expect(Number(markers?.[1])).toBeGreaterThan(0);
    expect(Number(markers?.[1])).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('the display cap', () => {
  it('falls on a line boundary', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'seq 1 100000' });
    const p = parseShellResult(res.text);
    const lines = p.stdout.trimEnd().split('\n');
    const first = Number(lines[0]);
    expect(Number.isInteger(first)).toBe(true);
    expect(first + lines.length - 1).toBe(100000); // every shown line whole and in order
  });
});

describe('leftovers', () => {
  it('are ended with a note naming the count and run_in_background; the marker parses back', async () => {
    const r = await rig();
    const res = await r.call('bash', { command: 'sleep 30 & sleep 30 & echo two' });
    const p = parseShellResult(res.text);
    expect(p.leftover).toBe(2);
    expect(res.data.left_running).toBe(2);
    expect(p.notes.join(' ')).toMatch(
      /2 processes the command left running were ended when it returned; start servers and watchers with run_in_background/,
    );
  });
});
