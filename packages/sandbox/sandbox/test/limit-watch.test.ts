/**
 * The unprivileged memory watch's kill bound (memory-bound.ts, used by limit-watch.ts): the limit less its margin at
 * rest, earlier while memory grows fast (a look can come late on a loaded machine), never below
 * half the limit; the growth it projects is the fastest of the last second, so one still look
 * does not hide it. The watch itself is shown by the red-team rows `resources-memory` and
 * `resources-fork-bomb-pids` as an ordinary user, and by fence-limits-user.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  GROWTH_WINDOW_MS,
  MEMORY_WATCH_LOOKAHEAD_MS,
  MEMORY_WATCH_MARGIN_SHARE,
  MemoryGrowth,
  memoryKillBound,
} from '../src/memory-bound.js';

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

describe('the growth rate is the fastest of the last second', () => {
  it('a look that saw no growth does not make a growing world read as still', () => {
    const g = new MemoryGrowth();
    expect(g.see(0, 0)).toBe(0);
    expect(g.see(GiB, 100)).toBeCloseTo(GiB / 100, 0); // 10 MiB/ms: 10 GiB/s
    expect(g.see(2 * GiB, 200)).toBeCloseTo(GiB / 100, 0);
    // Stalled for one look: the average since the first look still says 2 GiB in 220 ms.
    const stalled = g.see(2 * GiB, 220);
    expect(stalled).toBeCloseTo((2 * GiB) / 220, 0);
    expect(memoryKillBound(16 * GiB, stalled)).toBeLessThan(memoryKillBound(16 * GiB, 0));
  });

  it('growth older than the window is forgotten', () => {
    const g = new MemoryGrowth();
    g.see(0, 0);
    g.see(4 * GiB, 100);
    expect(g.see(4 * GiB, 100 + GROWTH_WINDOW_MS + 1)).toBe(0);
  });

  it('shrinking, or the first look, is no growth', () => {
    const g = new MemoryGrowth();
    expect(g.see(4 * GiB, 0)).toBe(0);
    expect(g.see(GiB, 50)).toBe(0);
  });
});
