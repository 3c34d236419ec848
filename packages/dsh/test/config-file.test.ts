import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CONFIG_KEYS, CONFIG_SCHEMA, CONFIG_SECTIONS } from 'dsh';
import { describe, expect, it } from 'vitest';
import { dsh, place } from './cli-config.js';

const CONFIG_DOC = readFileSync(fileURLToPath(new URL('../../../docs/config.md', import.meta.url)), 'utf8');

function dump(args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = dsh(['web', '--no-log', '--dump-config', ...args], cwd, env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    sandbox: { mode: string; network: boolean };
    config: { shell: { timeoutMs?: number } };
    configFiles: string[];
    configSources: Record<string, string>;
  };
}

describe('the config file', () => {
  it('flag over file over default, each value with its source', () => {
    const { workspace, file } = place({ sandbox: { mode: 'read-only' }, shell: { timeoutMs: 30_000 } });
    const fromFile = dump(['--config', file], workspace);
    expect(fromFile.sandbox.mode).toBe('read-only');
    expect(fromFile.config.shell.timeoutMs).toBe(30_000);
    expect(fromFile.configFiles).toEqual([file]);
    expect(fromFile.configSources).toMatchObject({
      'sandbox.mode': file,
      'shell.timeoutMs': file,
      'subprocess.containment': 'default',
    });
    const flagged = dump(['--config', file, '--sandbox', 'workspace-write'], workspace);
    expect(flagged.sandbox.mode).toBe('workspace-write');
    expect(flagged.configSources['sandbox.mode']).toBe('flags');
    const none = dump([], workspace);
    expect(none.sandbox.mode).toBe('workspace-write');
    expect(none.configFiles).toEqual([]);
  });

  it('is found through DSH_CONFIG and XDG_CONFIG_HOME; a named file that is missing is an error', () => {
    const { dir, workspace, file } = place({ sandbox: { mode: 'read-only' } });
    expect(dump([], workspace, { DSH_CONFIG: file }).sandbox.mode).toBe('read-only');
    mkdirSync(join(dir, 'xdg', 'dsh'), { recursive: true });
    writeFileSync(join(dir, 'xdg', 'dsh', 'config.json'), JSON.stringify({ sandbox: { network: true } }));
    const xdg = dump([], workspace, { XDG_CONFIG_HOME: join(dir, 'xdg') });
    expect(xdg.sandbox.network).toBe(true);
    const missing = dsh(['web', '--no-log', '--dump-config'], workspace, { DSH_CONFIG: join(dir, 'nope.json') });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('nope.json: does not exist');
  });

  it('dsh run obeys it: a deadline from the file kills the command', () => {
    const { workspace, file } = place({ shell: { timeoutMs: 300 } });
    const r = dsh(['run', '--no-log', '--config', file, '--', 'sleep 5'], workspace);
    expect(r.status).toBe(124);
  });

  it('a workspace file may narrow, never widen, naming the key', () => {
    const narrow = place(
      { sandbox: { mode: 'workspace-write', network: true } },
      { sandbox: { mode: 'read-only', network: false, denyRead: ['~/x'] } },
    );
    const d = dump(['--config', narrow.file], narrow.workspace);
    expect(d.sandbox).toMatchObject({ mode: 'read-only', network: false });
    expect(d.configFiles).toEqual([narrow.file, join(narrow.workspace, '.dsh', 'config.json')]);
    for (const [ws, field] of [
      [{ sandbox: { mode: 'danger-full-access' } }, 'sandbox.mode'],
      [{ sandbox: { network: true } }, 'sandbox.network'],
      [{ sandbox: { allowWrite: ['.git/hooks'] } }, 'sandbox.allowWrite'],
      [{ acp: { agents: { x: { command: ['sh'] } } } }, 'acp'],
      [{ world: { kind: 'remote', connect: ['ssh', 'h'] } }, 'world'],
      [{ shell: { timeoutMs: 10_000_000 } }, 'shell.timeoutMs'],
    ] as const) {
      const p = place({}, ws);
      const r = dsh(['web', '--no-log', '--dump-config', '--config', p.file], p.workspace);
      expect(r.status, JSON.stringify(ws)).toBe(2);
      expect(r.stderr).toContain(`"${field}"`);
    }
  });

  it('unknown keys name the nearest valid one; dsh config check says what is wrong and what is fine', () => {
    const { workspace, file } = place({ sandbox: { mod: 'read-only' } });
    const r = dsh(['config', 'check', file], workspace);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/"config\.sandbox\.mod" is not a known key; did you mean mode\?/);
    const served = dsh(['web', '--no-log', '--dump-config', '--config', file], workspace);
    expect(served.status).toBe(2);
    writeFileSync(file, JSON.stringify({ sandbox: { mode: 'read-only' } }));
    const ok = dsh(['config', 'check', file], workspace);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain(`${file}: ok`);
    writeFileSync(file, '{ not json');
    expect(dsh(['config', 'check', file], workspace).stderr).toContain('is not JSON');
  });

  it('dsh config schema prints the schema; its keys are compose()’s; the example in docs/config.md is valid against it', () => {
    const { workspace } = place({});
    const printed = JSON.parse(dsh(['config', 'schema'], workspace).stdout) as {
      properties: Record<string, { properties?: object }>;
    };
    expect(printed).toEqual(CONFIG_SCHEMA);
    const keys = Object.keys(printed.properties).filter((k) => k !== '$schema');
    expect(keys.sort()).toEqual(CONFIG_KEYS.filter((k) => k !== 'approver').sort());
    for (const [section, valid] of Object.entries(CONFIG_SECTIONS)) {
      if (section === 'world') continue; // a oneOf of the local and the remote shape
      expect(Object.keys(printed.properties[section]?.properties ?? {}).sort(), section).toEqual([...valid].sort());
    }
    const example = /<!-- config-example -->\n```json\n([\s\S]*?)\n```/.exec(CONFIG_DOC)?.[1];
    expect(example, 'docs/config.md has the example').toBeTruthy();
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(CONFIG_SCHEMA);
    expect(validate(JSON.parse(example as string)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ sandbox: { mod: 'x' } })).toBe(false);
  });
});
