/**
 * The README stays the front page (at most README_MAX_LINES lines, the two set-up commands, links
 * that resolve), and the pages it links to exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(join(REPO, 'README.md'), 'utf8');
/** The README is a front page: depth lives in docs/. */
const README_MAX_LINES = 250;

describe('the README', () => {
  it('is a front page: short, with the two set-up commands', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
    expect(README).toContain("npm ci && npx dsh run -- 'echo hello'");
    expect(README).toMatch(/^npm test$/m);
  });

  it('links only to pages that exist, and the docs link back to nothing missing', () => {
    const links = [...README.matchAll(/\]\(((?:docs\/)[^)#]+)\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(existsSync(join(REPO, link)), link).toBe(true);
    for (const page of new Set(links.filter((l) => l.endsWith('.md')))) {
      const text = readFileSync(join(REPO, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)#:]+\.(?:md|png))\)/g)) {
        expect(existsSync(join(REPO, 'docs', m[1] as string)), `${page} → ${m[1]}`).toBe(true);
      }
    }
  });
});
