/**
 * Escalation through MCP elicitation: a client that declares it is asked (approve → the one
 * command runs outside the sandbox; decline → nothing runs), in both eras; a client without it
 * is denied with what the person can configure instead.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, ERAS, textOf } from './helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory outside the workspace and outside /tmp (which a confined command sees fresh): it cannot write there. */
function outside(): string {
  const dir = mkdtempSync('/var/tmp/dsh-mcp-outside-');
  made.push(dir);
  return dir;
}

describe.each(ERAS)('escalation over MCP (%s era)', (era) => {
  it('approved by the user: that one command runs outside the sandbox, the next is confined again', async () => {
    const asked: string[] = [];
    const { client } = await connect({
      era,
      elicit: (message) => {
        asked.push(message);
        return { action: 'accept', content: { approve: true } };
      },
    });
    const dir = outside();
    const r = await client.callTool({
      name: 'bash',
      arguments: { command: `touch ${dir}/escalated`, sandbox_permissions: 'require_escalated', justification: 'test' },
    });
    expect(r.isError).toBe(false);
    expect(textOf(r)).toContain('escalation approved');
    expect(existsSync(join(dir, 'escalated'))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`touch ${dir}/escalated`);
    const after = await client.callTool({ name: 'bash', arguments: { command: `touch ${dir}/after` } });
    expect(textOf(after)).toContain(`[sandbox denied: file ${dir}/after; mode: workspace-write]`);
    expect(existsSync(join(dir, 'after'))).toBe(false);
  });

  it('declined by the user: nothing runs and the model reads why', async () => {
    const { client } = await connect({ era, elicit: () => ({ action: 'decline' }) });
    const dir = outside();
    const r = await client.callTool({
      name: 'bash',
      arguments: { command: `touch ${dir}/never`, sandbox_permissions: 'require_escalated', justification: 'test' },
    });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ error: { code: 'ESCALATION_DENIED' } });
    expect(textOf(r)).toMatch(/the user declined/);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('a client without elicitation is never asked: denied, naming --sandbox', async () => {
    const { client } = await connect({ era });
    const dir = outside();
    const r = await client.callTool({
      name: 'bash',
      arguments: { command: `touch ${dir}/never`, sandbox_permissions: 'require_escalated', justification: 'test' },
    });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ error: { code: 'ESCALATION_DENIED' } });
    expect(textOf(r)).toMatch(/cannot ask the user.*--sandbox/);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});
