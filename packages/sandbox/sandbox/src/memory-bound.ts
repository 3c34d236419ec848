/**
 * Where the unprivileged memory watch (limit-watch.ts) kills: just below the limit at rest, and
 * earlier while the world's memory grows, by what it would add before a late next look. The
 * growth is the fastest seen over the last {@link GROWTH_WINDOW_MS}, not only between the last
 * two looks: a process that stalls for one look (descheduled on a loaded machine, or between two
 * mappings) would otherwise read as still and then pass the limit before the look after.
 */

/**
 * The watch acts this share below the memory limit: memory can grow between two looks (a few
 * GiB/s at most here: well within 1/32 of a limit of a few GiB in 20 ms).
 */
export const MEMORY_WATCH_MARGIN_SHARE = 1 / 32;
/**
 * A world whose memory grows is judged by where it would be this much later at its growth rate:
 * a look can come hundreds of milliseconds late on a loaded machine (seen: 0.7 GiB past the
 * bound under a parallel test run), and memory grows GiB/s.
 */
export const MEMORY_WATCH_LOOKAHEAD_MS = 400;
/** The growth projection never makes the watch act below this share of the limit. */
const LOOKAHEAD_FLOOR_SHARE = 0.5;
/**
 * The growth rate is the fastest average growth from any look of this last while to now (seen:
 * a world read as still for one look past 11 GiB, then 0.3 GiB over its limit at the next).
 */
export const GROWTH_WINDOW_MS = 1_000;
/** The most looks the growth window keeps (at the close watch's 20 ms, a second is 50). */
const GROWTH_WINDOW_LOOKS = 64;

/**
 * The sum of memory past which the watch kills: the limit less its margin, less what the world
 * would add in {@link MEMORY_WATCH_LOOKAHEAD_MS} at `bytesPerMs`, never below half the limit.
 */
export function memoryKillBound(limitBytes: number, bytesPerMs: number): number {
  const bound = limitBytes * (1 - MEMORY_WATCH_MARGIN_SHARE);
  const growth = Math.max(0, bytesPerMs) * MEMORY_WATCH_LOOKAHEAD_MS;
  return Math.max(limitBytes * LOOKAHEAD_FLOOR_SHARE, bound - growth);
}

/** The world's memory over its last looks, for its growth rate. */
export class MemoryGrowth {
  private readonly looks: { bytes: number; at: number }[] = [];

  /**
   * Records a look of `bytes` at `at` (milliseconds, any monotonic clock) and returns the growth
   * rate in bytes/ms: the fastest average growth from a look of the last
   * {@link GROWTH_WINDOW_MS} to this one (0 when memory only shrank or this is the first look).
   */
  see(bytes: number, at: number): number {
    const old = (first: { at: number } | undefined) => first !== undefined && at - first.at > GROWTH_WINDOW_MS;
    while (old(this.looks[0]) || this.looks.length >= GROWTH_WINDOW_LOOKS) this.looks.shift();
    let rate = 0;
    for (const then of this.looks) {
      if (at > then.at) rate = Math.max(rate, (bytes - then.bytes) / (at - then.at));
    }
    this.looks.push({ bytes, at });
    return rate;
  }
}
