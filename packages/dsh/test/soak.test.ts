/**
 * The short soak of the suite (`npm run soak` is the long one): mixed operations through the
 * tools and the MCP server, then descriptors, processes, zombies, cgroups, disk and memory are
 * back at their baseline, and a `yes` flood stays within its caps.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without types
import { soak } from '../../../scripts/soak.mjs';

/** Operations of the short soak. */
const SHORT_OPS = 400;
/**
 * RSS the short soak may grow by: 400 operations in a busy parallel suite measure the allocator's
 * noise more than a leak (the live heap is held to 10 MiB, and `npm run soak` holds RSS to 10 MiB).
 */
const SHORT_RSS_SLACK_BYTES = 48 * 1024 * 1024;

describe('soak (short)', () => {
  it(`${SHORT_OPS} mixed operations leave nothing behind`, async () => {
    const report = await soak({ ops: SHORT_OPS, floodMs: 2_000, rssSlack: SHORT_RSS_SLACK_BYTES });
    expect(report.violations).toEqual([]);
    expect(report.ops).toBe(SHORT_OPS);
    for (const kind of [
      'oneshot',
      'sandboxed',
      'spill-kept',
      'spill-over-cap',
      'background',
      'terminal',
      'abort',
      'reload',
      'mcp',
    ]) {
      expect(report.counts[kind]).toBeGreaterThan(0);
    }
  }, 180_000);
});
