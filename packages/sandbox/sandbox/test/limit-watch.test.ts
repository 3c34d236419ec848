/**
 * The unprivileged memory watch's kill bound (limit-watch.ts): the limit less its margin at
 * rest, earlier while memory grows fast (a look can come late on a loaded machine), never below
 * half the limit. The watch itself is shown by the red-team rows `resources-memory` and
 * `resources-fork-bomb-pids` as an ordinary user, and by fence-limits-user.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MEMORY_WATCH_LOOKAHEAD_MS, MEMORY_WATCH_MARGIN_SHARE, memoryKillBound } from '../src/limit-watch.js';

const GiB = 2 ** 30;

describe('the memory watch kills before a growing world passes its limit', () => {
  it('at rest or shrinking: the limit less its margin', () => {
    expect(memoryKillBound(8 * GiB, 0)).toBe(8 * GiB * (1 - MEMORY_WATCH_MARGIN_SHARE));
    expect(memoryKillBound(8 * GiB, -GiB / 1000)).toBe(8 * GiB * (1 - MEMORY_WATCH_MARGIN_SHARE));
  });

  it('growing at 1 GiB/s: earlier by what a late look would let it add', () => {
    const bound = memoryKillBound(8 * GiB, GiB / 1000);
    expect(bound).toBeCloseTo(8 * GiB * (1 - MEMORY_WATCH_MARGIN_SHARE) - (GiB / 1000) * MEMORY_WATCH_LOOKAHEAD_MS, 0);
    expect(bound).toBeLessThan(8 * GiB * (1 - MEMORY_WATCH_MARGIN_SHARE));
  });

  it('however fast it grows, never below half the limit', () => {
    expect(memoryKillBound(8 * GiB, 100 * GiB)).toBe(4 * GiB);
  });
});
