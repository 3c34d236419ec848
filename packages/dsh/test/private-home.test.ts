/**
 * A private home per world in the restricted modes (issue 20, d): programs keep their state
 * (vim's viminfo, `~/.local/share/...`) without a complaint, the real home is never written,
 * hidden files stay hidden, and the private home ends with the world.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { compose, parseShellResult } from 'dsh';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** Where this user's private homes live (beside the fence's files). */
const HOMES = join(tmpdir(), `dsh-${userInfo().username}`, 'homes');
let home = '';
let workspace = '';
let savedHome: string | undefined;

beforeEach(() => {
  savedHome = process.env.HOME;
  home = mkdtempSync('/var/tmp/dsh-home-');
  workspace = mkdtempSync('/var/tmp/dsh-home-ws-');
  writeFileSync(join(home, '.bashrc'), '# the person’s own\n');
  writeFileSync(join(home, '.viminfo'), '# viminfo of the person\n');
  mkdirSync(join(home, '.local', 'share', 'app'), { recursive: true });
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_test'), 'SECRET-KEY-OF-THE-PERSON\n');
  writeFileSync(join(workspace, 'notes.txt'), 'one\n');
  process.env.HOME = home;
});
afterEach(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

/** Quits vim in a terminal of a fresh composition and returns what the quit said, and the run's text. */
async function vimQuit(privateHome: boolean): Promise<{ quit: string; run: string; homes: string[] }> {
  const dsh = await compose({
    preset: 'full',
    config: { workspace, sandbox: { mode: 'workspace-write', privateHome } },
  });
  try {
    const agent = dsh.createAgent('state');
    const run = await dsh.tools.call(agent, 'bash', {
      command:
        'echo mine > ~/.bashrc; mkdir -p ~/.local/share/nano && echo made; echo "# more" >> ~/.viminfo; cat ~/.ssh/id_test; true',
    });
    const id = (await dsh.tools.call(agent, 'terminal_open', {})).data?.terminal_id as string;
    await dsh.tools.call(agent, 'terminal_send', {
      terminal_id: id,
      input: `vim -N -u NONE --cmd "set viminfo='10" notes.txt`,
    });
    const quit = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: ':q' });
    if (!quit.text.includes('exit code 0')) {
      await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, keys: ['Enter'], submit: false });
    }
    if (privateHome) {
      // What the model types next really runs, with its own exit code.
      const next = await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, input: 'echo ok; false' });
      expect(next.text).toBe('ok\n[ready at the prompt; exit code: 1]');
      // The REPLs and htop keep their state without a complaint (nano, as root, looks in the
      // passwd entry's home, not in this test's $HOME: the state parents exist, see private-home.ts).
      const said: string[] = [];
      const send = async (args: Record<string, unknown>) =>
        said.push((await dsh.tools.call(agent, 'terminal_send', { terminal_id: id, ...args })).text);
      await send({ input: 'node' });
      await send({ input: '1 + 1' });
      await send({ input: '.exit' });
      await send({ input: 'python3 -q' });
      await send({ input: 'print(40 + 2)' });
      await send({ input: 'exit()' });
      await send({ input: 'htop' });
      await send({ keys: ['q'], submit: false });
      await send({ input: 'ls -d ~/.node_repl_history ~/.python_history ~/.config/htop' });
      const all = said.join('\n');
      expect(all).not.toMatch(
        /Could not open history|Unable to create|Permission denied|Read-only file system|Traceback/,
      );
      expect(said.at(-1)).toMatch(/\[ready at the prompt; exit code: 0\]$/);
    }
    return { quit: quit.text, run: run.text, homes: existsSync(HOMES) ? readdirSync(HOMES) : [] };
  } finally {
    await dsh.dispose();
  }
}

describe('a private home', () => {
  it('takes programs’ state in workspace-write; the real home is untouched; hidden stays hidden', async () => {
    const before = readdirSync(home).sort();
    const { quit, run, homes } = await vimQuit(true);
    expect(quit).not.toMatch(/E138|E886|E575|Press ENTER/);
    expect(quit).toMatch(/read your input and has exited \(exit code 0\)/);
    const parsed = parseShellResult(run);
    expect(parsed.stdout).toBe('made\n');
    expect(run).not.toContain('SECRET-KEY-OF-THE-PERSON');
    expect(parsed.stderr).toMatch(/Permission denied/);
    expect(homes.some((h) => h.startsWith(`home-${process.pid}-`))).toBe(true);
    // The real home: as it was.
    expect(readdirSync(home).sort()).toEqual(before);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# the person’s own\n');
    expect(readFileSync(join(home, '.viminfo'), 'utf8')).toBe('# viminfo of the person\n');
    expect(existsSync(join(home, '.local', 'share', 'nano'))).toBe(false);
    // Gone with the world.
    const left = existsSync(HOMES) ? readdirSync(HOMES).filter((h) => h.startsWith(`home-${process.pid}-`)) : [];
    expect(left).toEqual([]);
  });

  it('without it (privateHome: false) the home is read-only: vim cannot keep its viminfo', async () => {
    const { quit, run } = await vimQuit(false);
    expect(quit).toMatch(/E138|E886/);
    expect(parseShellResult(run).stdout).not.toContain('made');
  });
});
