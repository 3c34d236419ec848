/**
 * docs/threat-model.md lists every red-team attempt by name: its generated section must match
 * the rows table (regenerate it with the command the failure names).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROWS } from './rows/index.js';
import { currentSection, REGENERATE, renderSection, splice, THREAT_MODEL } from './threat-model.js';

describe('the threat model lists the red-team suite', () => {
  it('has the generated section, current with the rows table', () => {
    expect(existsSync(THREAT_MODEL), `docs/threat-model.md is missing: run ${REGENERATE}`).toBe(true);
    const section = currentSection(readFileSync(THREAT_MODEL, 'utf8'));
    expect(section, `docs/threat-model.md has no red-team section: run ${REGENERATE}`).not.toBeNull();
    expect(section === renderSection(ROWS), `docs/threat-model.md's red-team section is stale: run ${REGENERATE}`).toBe(
      true,
    );
  });

  it('names every row once', () => {
    const section = renderSection(ROWS);
    for (const row of ROWS) expect(section.split(`| \`${row.id}\` |`).length - 1, row.id).toBe(1);
  });

  it('rewrites only what lies between the markers', () => {
    const doc = 'prose before\n<!-- redteam:begin -->\nold\n<!-- redteam:end -->\nprose after\n';
    expect(splice(doc, 'new')).toBe('prose before\n<!-- redteam:begin -->\nnew\n<!-- redteam:end -->\nprose after\n');
    expect(currentSection(splice('# Only a heading\n', 'added'))).toBe('added');
  });
});
