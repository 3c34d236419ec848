/**
 * ctx.acp with a scripted ACP agent (the SDK's agent side, in the fixtures): agent_task gives the
 * agent's message, plan and tool calls; files are read and written within the sandbox mode;
 * permission goes through the approver (approved and denied); a terminal is created, waited for
 * and read; a cancel ends the turn and the agent's tree; bad agents are refused.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compose, type Dsh } from 'dsh';
import { afterEach, describe, expect, it } from 'vitest';
import { codeOf, isAlive, tempDir, waitFor } from '../../../test/support.js';

const AGENT = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'acp-agent.mjs');
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const open: Dsh[] = [];
const after: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.dispose()));
  for (const dir of after.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function rig(mode: 'workspace-write' | 'danger-full-access', approve?: boolean, shareTools = false) {
  const workspace = tempDir('dsh-acp-');
  const scripted = { command: [process.execPath, AGENT], description: 'a scripted test agent', shareTools };
  const dsh = await compose({
    preset: 'base',
    config: {
      workspace,
      sandbox: { mode },
      acp: { agents: { scripted } },
      ...(approve === undefined ? {} : { approver: async () => approve }),
    },
  });
  open.push(dsh);
  return { dsh, agent: dsh.createAgent('lead'), workspace };
}

const task = (dsh: Dsh, agent: ReturnType<Dsh['createAgent']>, prompt: string, options = {}) =>
  dsh.tools.call(agent, 'agent_task', { agent: 'scripted', prompt }, options);

describe('agent_task with a scripted ACP agent', () => {
  it('names the configured agents and their purpose in its description and schema', async () => {
    const { dsh } = await rig('danger-full-access');
    const tool = dsh.tools.list().find((t) => t.name === 'agent_task');
    expect(tool?.description).toContain('(scripted)');
    if (!tool) throw new Error('no agent_task tool');
    const agentArg = (tool.inputSchema as { properties: { agent: { description: string } } }).properties.agent;
    expect(agentArg.description).toBe('one of: scripted (a scripted test agent)');
  });

  it('reads and writes files within the sandbox, streams its plan and tool calls', async () => {
    const { dsh, agent, workspace } = await rig('workspace-write');
    writeFileSync(join(workspace, 'in.txt'), 'hello from the workspace\n');
    const outside = join(tempDir('dsh-acp-outside-'), 'x.txt');
    const r = await task(
      dsh,
      agent,
      [
        'say starting',
        'plan',
        `read ${workspace}/in.txt`,
        `write ${workspace}/out.txt done`,
        `write ${outside} nope`,
      ].join('\n'),
    );
    expect(r.isError).toBe(false);
    expect(r.text).toContain('starting\nread: hello from the workspace\nwrote');
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('done');
    expect(r.text).toMatch(/write failed: .*outside what sandbox mode workspace-write allows/);
    expect(existsSync(outside)).toBe(false);
    expect(r.text).toContain('[plan]\n- [completed] look around\n- [pending] finish');
    expect(r.text).toContain('[tool calls: 5]');
    expect(r.text).toContain(`- failed: write ${outside} nope`);
    expect(r.text).toContain('[stop reason: end_turn]');
    expect(r.data).toMatchObject({ stop_reason: 'end_turn', tool_calls: 5 });
  });

  it('in a remote world, files are read and written there, within the sandbox there', async () => {
    for (const mode of ['danger-full-access', 'workspace-write'] as const) {
      const workspace = tempDir('dsh-acp-world-');
      writeFileSync(join(workspace, 'in.txt'), 'from this machine\n');
      const outside = tempDir('dsh-acp-world-outside-');
      // The world: this machine with empty tmpfs over the two directories, reached as a remote one
      // is. The checkout is bound at /mnt there: a fence masks /tmp, where a CI clone may live.
      const connect = ['bwrap', '--dev-bind', '/', '/', '--tmpfs', workspace, '--tmpfs', outside];
      connect.push('--ro-bind', REPO, '/mnt');
      const dsh = await compose({
        preset: 'base',
        config: {
          workspace,
          sandbox: { mode },
          world: { kind: 'remote', connect },
          acp: { agents: { scripted: { command: [process.execPath, join('/mnt', relative(REPO, AGENT))] } } },
        },
      });
      open.push(dsh);
      const agent = dsh.createAgent('lead');
      const setup = `echo from the world > ${workspace}/in.txt; echo keep > ${outside}/linked; ln -s ${outside}/linked ${workspace}/link; mkfifo ${workspace}/fifo`;
      await dsh.tools.call(agent, 'bash', { command: setup });
      const steps = [
        `read ${workspace}/in.txt`,
        `read ${workspace}/fifo`,
        `write ${workspace}/out.txt done`,
        `write ${outside}/x.txt nope`,
        `write ${workspace}/link nope`,
      ];
      const r = await task(dsh, agent, steps.join('\n'));
      expect(r.text, mode).toContain('read: from the world');
      expect(existsSync(join(workspace, 'out.txt')), mode).toBe(false);
      const there = await dsh.tools.call(agent, 'bash', {
        command: `cat ${workspace}/out.txt; echo; ls ${outside}; cat ${outside}/linked`,
      });
      expect(there.text, mode).toMatch(/^done\n/);
      expect(r.text, mode).toMatch(/read failed: .*not a regular file/); // and it did not hang on the FIFO
      if (mode === 'workspace-write') {
        // The outside path is refused; so is the link to it (its target is not even in the fence there).
        expect(r.text).toMatch(/write failed: .*outside what sandbox mode workspace-write allows/);
        expect(r.text.match(/write failed: /g)).toHaveLength(2);
      } else expect(there.text).toMatch(/^done\nlinked\nx\.txt\nnope/);
    }
  });

  it('a symlink out of the workspace does not widen writes, and the agent itself runs inside the fence', async () => {
    const { dsh, agent, workspace } = await rig('workspace-write');
    const outsideDir = tempDir('dsh-acp-outside-');
    const target = join(outsideDir, 'precious.txt');
    writeFileSync(target, 'keep\n');
    symlinkSync(target, join(workspace, 'link'));
    symlinkSync(outsideDir, join(workspace, 'dirlink'));
    const r = await task(
      dsh,
      agent,
      [
        `write ${workspace}/link nope`,
        `write ${workspace}/dirlink/new.txt nope`,
        `selfwrite ${outsideDir}/self.txt`,
        `selfwrite ${workspace}/self.txt`,
      ].join('\n'),
    );
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
    expect(existsSync(join(outsideDir, 'new.txt'))).toBe(false);
    expect(r.text.match(/write failed: .*outside what sandbox mode/g)).toHaveLength(2);
    // Inside the fence the outside dir is read-only, or not there at all (a fresh /tmp).
    expect(r.text).toMatch(/selfwrite failed: .*(read-only|EROFS|ENOENT)/i);
    expect(existsSync(join(outsideDir, 'self.txt'))).toBe(false);
    expect(r.text).toContain(`selfwrote ${workspace}/self.txt`);
  });

  it('permission goes through the approver: approved, denied, and denied with no approver', async () => {
    for (const [approve, word] of [
      [true, 'allowed'],
      [false, 'rejected'],
      [undefined, 'rejected'],
    ] as const) {
      const { dsh, agent } = await rig('danger-full-access', approve);
      const r = await task(dsh, agent, 'ask');
      expect(r.text).toContain(`permission: ${word}`);
    }
  });

  it('creates a terminal (backed by ctx.shell), waits for it and reads its output', async () => {
    const { dsh, agent } = await rig('workspace-write');
    const r = await task(dsh, agent, 'term echo hi-from-terminal; exit 3');
    expect(r.text).toContain('term exit=3 output=hi-from-terminal');
  });

  it('a terminal’s output is one stream as written (no dsh markers); after release a readable ACP error', async () => {
    const { dsh, agent } = await rig('workspace-write');
    const r = await task(dsh, agent, ['term echo one; echo two >&2; echo three', 'termgone'].join('\n'));
    expect(r.text).toContain('term exit=0 output=one\ntwo\nthree');
    expect(r.text).not.toContain('[stderr]');
    expect(r.text).toMatch(/after release: code=-32602 .*no terminal term-\d+ in this session/);
  });

  it('a cancelled call sends session/cancel: the turn ends as cancelled and the agent is gone', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const ac = new AbortController();
    const call = task(dsh, agent, 'say working\nsleep 60000\nsay never', { signal: ac.signal });
    // The agent runs as a child of this process: wait until it exists, then cancel.
    const agentPids = () => execPids().filter((pid) => readFileSafe(`/proc/${pid}/cmdline`).includes('acp-agent.mjs'));
    await waitFor(() => agentPids().length === 1, 'the agent to start');
    ac.abort();
    const r = await call;
    expect(r.text).toContain('[stop reason: cancelled]');
    expect(r.text).not.toContain('never');
    await waitFor(() => agentPids().length === 0, 'the agent to end');
  });

  it('each task is in the session log like any tool call', async () => {
    const workspace = tempDir('dsh-acp-');
    const logDir = join(tempDir('dsh-acp-log-'), 'logs');
    const dsh = await compose({
      config: {
        workspace,
        sandbox: { mode: 'danger-full-access' },
        sessionLog: { dir: logDir },
        acp: { agents: { scripted: { command: [process.execPath, AGENT], description: 'a scripted test agent' } } },
      },
    });
    open.push(dsh);
    await task(dsh, dsh.createAgent('lead'), 'say logged-task');
    const { dir } = (dsh.dumpConfig().config as { sessionLog: { dir: string } }).sessionLog;
    const lines = readFileSync(join(dir, 'session.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; tool?: string; text?: string });
    const logged = lines.find((l) => l.type === 'tool_call' && l.tool === 'agent_task');
    expect(logged?.text).toContain('logged-task');
  });

  it('refuses an unknown agent and a bad agent config', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const r = await dsh.tools.call(agent, 'agent_task', { agent: 'nobody', prompt: 'hi' });
    expect((r.data as { error: { code: string } }).error.code).toBe('ACP_UNKNOWN_AGENT');
    expect(r.text).toContain('configured: scripted');
    const bad = compose({ config: { acp: { agents: { x: { command: [] } } } } });
    expect(await codeOf(bad)).toBe('INVALID_ARGUMENT');
    const broken = await compose({
      config: {
        workspace: tempDir('dsh-acp-'),
        sandbox: { mode: 'danger-full-access' },
        acp: { agents: { dead: { command: ['false'] } } },
      },
    });
    open.push(broken);
    const failed = await broken.tools.call(broken.createAgent('a'), 'agent_task', { agent: 'dead', prompt: 'hi' });
    expect((failed.data as { error: { code: string } }).error.code).toBe('ACP_START_FAILED');
  });

  it('start failures say why: not found, exited with its code and stderr, not an ACP agent', async () => {
    const dsh = await compose({
      config: {
        workspace: tempDir('dsh-acp-'),
        sandbox: { mode: 'danger-full-access' },
        acp: {
          agents: {
            missing: { command: ['/nonexistent/dsh-agent'] },
            dies: { command: ['sh', '-c', 'echo "boom: no API key set" >&2; exit 3'] },
            chatty: { command: ['sh', '-c', 'echo "Welcome to the shell"; sleep 60'] },
          },
        },
      },
    });
    open.push(dsh);
    const a = dsh.createAgent('a');
    const call = (agent: string) => dsh.tools.call(a, 'agent_task', { agent, prompt: 'hi' });
    const missing = await call('missing');
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('was not found');
    const dies = await call('dies');
    expect((dies.data as { error: { code: string } }).error.code).toBe('ACP_START_FAILED');
    expect(dies.text).toContain('exited with code 3');
    expect(dies.text).toContain('boom: no API key set');
    const chatty = await call('chatty');
    expect(chatty.text).toContain('not an ACP agent');
    expect(chatty.text).toContain('Welcome to the shell');
  });

  it('a task past the yield limit goes on as a job: progress shows its last line, job_output its messages', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const reports: string[] = [];
    const r = await task(dsh, agent, ['say first part', 'sleep 2500', 'say second part'].join('\n'), {
      yieldMs: 1200,
      progress: (p: { lastLine: string }) => reports.push(p.lastLine),
    });
    const data = r.data as { job_id: string; yielded: boolean };
    expect(data.yielded).toBe(true);
    expect(r.text).toContain('first part');
    expect(r.text).toContain(`job_output {"job_id":"${data.job_id}"}`);
    expect(reports).toContain('first part');
    let seen = '';
    const ended = await waitFor(async () => {
      const out = await dsh.tools.call(agent, 'job_output', { job_id: data.job_id });
      seen += out.text;
      return (out.data as { state: string }).state === 'succeeded' ? out : null;
    }, 'the task ended as a job');
    expect(seen).toContain('second part');
    expect(ended.text).toContain('[stop reason: end_turn]');
  });

  it('job_kill cancels a handed-over task through session/cancel', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const r = await task(dsh, agent, ['say working', 'sleep 60000'].join('\n'), { yieldMs: 800 });
    const jobId = (r.data as { job_id: string }).job_id;
    expect(jobId).toBeTruthy();
    const killed = await dsh.tools.call(agent, 'job_kill', { job_id: jobId });
    expect(killed.isError).toBe(false);
    const info = await waitFor(() => {
      const i = dsh.ctx.get('jobs').info(agent, jobId);
      return i.state !== 'running' ? i : null;
    }, 'the job ended');
    expect(info.state).toBe('killed');
    expect(info.result?.text).toContain('[stop reason: cancelled]');
  });

  it('a follow-up turn with session_id continues the same agent and session; a new task gets a new one', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const first = await task(dsh, agent, 'remember the blue door');
    const id = (first.data as { session_id: string }).session_id;
    expect(id).toMatch(/^scripted-/);
    expect(first.text).toContain(`session_id "${id}"`);
    const pidOf = (text: string) => /\(pid (\d+)\)/.exec(text)?.[1];
    const again = await dsh.tools.call(agent, 'agent_task', { agent: 'scripted', prompt: 'recall', session_id: id });
    expect(again.text).toContain('recalled the blue door');
    const third = await dsh.tools.call(agent, 'agent_task', { agent: 'scripted', prompt: 'recall', session_id: id });
    expect(pidOf(third.text)).toBe(pidOf(again.text));
    const fresh = await task(dsh, agent, 'recall');
    expect(fresh.text).toContain('recalled nothing');
    expect(pidOf(fresh.text)).not.toBe(pidOf(again.text));
    const other = dsh.createAgent('other');
    const stolen = await dsh.tools.call(other, 'agent_task', { agent: 'scripted', prompt: 'recall', session_id: id });
    expect((stolen.data as { error: { code: string } }).error.code).toBe('ACP_UNKNOWN_SESSION');
  });

  it('a session whose agent process ended is loaded again by a new one (session/load) when the agent offers it', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const first = await task(dsh, agent, 'remember the green gate\nrecall');
    const id = (first.data as { session_id: string }).session_id;
    const pid = Number(/\(pid (\d+)\)/.exec(first.text)?.[1]);
    expect(pid).toBeGreaterThan(1);
    process.kill(pid, 'SIGKILL'); // the agent's process dies between turns
    await waitFor(() => !isAlive(pid), 'the agent process ended');
    const again = await dsh.tools.call(agent, 'agent_task', { agent: 'scripted', prompt: 'recall', session_id: id });
    expect(again.isError, again.text).toBe(false);
    expect(again.text).toContain('recalled the green gate');
    expect(again.text).toContain('a new one loaded the session (session/load)');
    expect(again.data).toMatchObject({ session_id: id, reloaded: true });
    expect(Number(/\(pid (\d+)\)/.exec(again.text)?.[1])).not.toBe(pid);
    // The next turn runs on the loaded process: no new load.
    const third = await dsh.tools.call(agent, 'agent_task', { agent: 'scripted', prompt: 'recall', session_id: id });
    expect(third.data).not.toHaveProperty('reloaded');
    expect(third.text).toContain('recalled the green gate');
  });

  it('a session loaded again counts toward the live bound: the least recently used idle one ends', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const pidOf = (text: string) => Number(/\(pid (\d+)\)/.exec(text)?.[1]);
    const opened: { id: string; pid: number }[] = [];
    for (const word of ['a', 'b', 'c', 'd']) {
      const r = await task(dsh, agent, `remember ${word}\nrecall`);
      opened.push({ id: (r.data as { session_id: string }).session_id, pid: pidOf(r.text) });
    }
    const [first, second, ...rest] = opened as [
      { id: string; pid: number },
      { id: string; pid: number },
      ...{ id: string; pid: number }[],
    ];
    process.kill(first.pid, 'SIGKILL');
    await waitFor(() => !isAlive(first.pid), 'the first agent ended');
    const fifth = await task(dsh, agent, 'recall'); // a fifth session: the dead first one is remembered, not live
    const loaded = await dsh.tools.call(agent, 'agent_task', {
      agent: 'scripted',
      prompt: 'recall',
      session_id: first.id,
    });
    expect(loaded.text).toContain('recalled a');
    // Five live again: the least recently used idle one (the second) ends.
    await waitFor(() => !isAlive(second.pid), 'the least recently used session ended');
    for (const pid of [...rest.map((r) => r.pid), pidOf(fifth.text), pidOf(loaded.text)])
      expect(isAlive(pid)).toBe(true);
  });

  it('config.acp.agents.NAME.mcpServers reach the agent in session/new', async () => {
    const dsh = await compose({
      config: {
        workspace: tempDir('dsh-acp-'),
        sandbox: { mode: 'danger-full-access' },
        acp: {
          agents: {
            scripted: {
              command: [process.execPath, AGENT],
              mcpServers: [{ name: 'files', command: ['npx', 'some-mcp', '--root', '/w'], env: { TOKEN: 't' } }],
            },
          },
        },
      },
    });
    open.push(dsh);
    const r = await dsh.tools.call(dsh.createAgent('a'), 'agent_task', { agent: 'scripted', prompt: 'mcpservers' });
    expect(r.text).toContain(
      'mcpServers=[{"name":"files","command":"npx","args":["some-mcp","--root","/w"],"env":[{"name":"TOKEN","value":"t"}]}]',
    );
    const bad = compose({
      config: { acp: { agents: { x: { command: ['sh'], mcpServers: [{ name: 'y' }] as never } } } },
    });
    expect(await codeOf(bad)).toBe('INVALID_ARGUMENT');
  });

  it('a crash mid-turn returns what the turn produced, the exit code and the stderr, as an error', async () => {
    const { dsh, agent } = await rig('danger-full-access');
    const r = await task(dsh, agent, ['say halfway there', 'crash out of memory'].join('\n'));
    expect(r.isError).toBe(true);
    expect(r.text).toContain('halfway there');
    expect(r.text).toContain('exited with code 7');
    expect(r.text).toContain('agent crashing: out of memory');
    expect(r.data).toMatchObject({ error: { code: 'ACP_AGENT_FAILED' }, exit_code: 7 });
  });
});

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
}

function execPids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

describe('shareTools: a sub-agent gets dsh’s own tools', () => {
  it('in the caller’s world and policy: its bash sees the caller’s /tmp and is fenced the same; agent_task is not shared', async () => {
    const { dsh, agent: lead, workspace } = await rig('workspace-write', undefined, true);
    // The lead's world has a /tmp of its own: a file there is seen only in that world.
    const mark = `mark-${process.pid}`;
    await dsh.tools.call(lead, 'bash', { command: `echo ${mark} > /tmp/lead-mark` });
    // Outside the workspace and outside /tmp (which the world sees fresh): it cannot write there.
    const outside = mkdtempSync('/var/tmp/dsh-acp-outside-');
    after.push(outside);
    const r = await dsh.tools.call(lead, 'agent_task', {
      agent: 'scripted',
      prompt: [
        'bash cat /tmp/lead-mark',
        `bash touch ${workspace}/by-sub && echo made`,
        `bash touch ${outside}/escaped`,
        `escalate touch ${outside}/self-approved`,
      ].join('\n'),
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/tools: .*bash/);
    expect(r.text).not.toMatch(/tools: .*agent_task/);
    expect(r.text).toContain(`bash: ${mark}`);
    expect(r.text).toContain('made');
    expect(existsSync(join(workspace, 'by-sub'))).toBe(true);
    expect(r.text).toContain(`[sandbox denied: file ${outside}/escaped`);
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    // A sub-agent's client that declares elicitation and approves itself is never asked.
    expect(r.text).toContain('no person is behind its client');
    expect(existsSync(join(outside, 'self-approved'))).toBe(false);
  });

  it('a sub-agent still connected does not hold up dispose; a widened mode is not served to an older sub-agent', async () => {
    const { dsh, agent: lead } = await rig('workspace-write', undefined, true);
    const first = await dsh.tools.call(lead, 'agent_task', { agent: 'scripted', prompt: 'connect\nbash echo before' });
    expect(first.text).toContain('connected: 4 tools');
    expect(first.text).toContain('bash: before');
    const id = (first.data as { session_id: string }).session_id;
    // The person widens the lead's mode: the sub-agent, started confined, is not served past it.
    dsh.ctx.get('sandboxPolicy').setMode(lead, 'danger-full-access');
    const after = await dsh.tools.call(lead, 'agent_task', {
      agent: 'scripted',
      prompt: 'bash echo after',
      session_id: id,
    });
    expect(after.text).toContain('sandbox policy of the agent that gave this task changed');
    expect(after.text).not.toContain('bash: after');
    // The first session's client is still connected: dispose ends it rather than waiting on it.
    open.splice(open.indexOf(dsh), 1);
    await dsh.dispose();
  });

  it('a confined command that reaches the socket itself gets the agent’s own tools, fenced, and no approval', async () => {
    const { dsh, agent: lead } = await rig('workspace-write', undefined, true);
    const first = await dsh.tools.call(lead, 'agent_task', { agent: 'scripted', prompt: 'connect\nbash echo up' });
    expect(first.text).toContain('bash: up');
    const outside = mkdtempSync('/var/tmp/dsh-acp-socket-');
    after.push(outside);
    // A client of its own on the world's share socket, declaring elicitation and approving itself.
    const client = [
      'import json, socket',
      's = socket.socket(socket.AF_UNIX); s.connect("/run/dsh/share/tools.sock"); f = s.makefile("rwb", buffering=0)',
      'def send(m): f.write((json.dumps(dict(jsonrpc="2.0", **m)) + "\\n").encode())',
      'def answer():',
      '    for line in f:',
      '        m = json.loads(line)',
      '        if m.get("method") == "elicitation/create": send(dict(id=m["id"], result=dict(action="accept", content=dict(approve=True)))); continue',
      '        if "id" in m and "method" not in m: return m',
      'send(dict(id=1, method="initialize", params=dict(protocolVersion="2025-06-18", capabilities=dict(elicitation={}), clientInfo=dict(name="x", version="1"))))',
      'answer(); send(dict(method="notifications/initialized"))',
      'def bash(i, **a): send(dict(id=i, method="tools/call", params=dict(name="bash", arguments=a))); return answer()["result"]["content"][0]["text"]',
      `print("PLAIN", bash(2, command="touch ${outside}/plain"))`,
      `print("ESCALATED", bash(3, command="touch ${outside}/escalated", sandbox_permissions="require_escalated", justification="x"))`,
    ].join('\n');
    writeFileSync(join(outside, 'client.py'), client);
    const r = await dsh.tools.call(lead, 'bash', { command: `python3 ${outside}/client.py` });
    expect(r.text).toContain('PLAIN');
    expect(r.text).toContain(`[sandbox denied: file ${outside}/plain`);
    expect(r.text).toContain('no person is behind its client');
    expect(existsSync(join(outside, 'plain'))).toBe(false);
    expect(existsSync(join(outside, 'escalated'))).toBe(false);
  });

  it('unconfined (danger-full-access): served from a private directory of this user', async () => {
    const { dsh, agent } = await rig('danger-full-access', undefined, true);
    const r = await dsh.tools.call(agent, 'agent_task', { agent: 'scripted', prompt: 'bash echo $((6*7))' });
    expect(r.text).toContain('bash: 42');
  });
});
