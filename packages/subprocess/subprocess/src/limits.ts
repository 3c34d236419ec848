/**
 * Named limits of the subprocess contract, each with its reason.
 */

/** Largest in-memory tail a collector may keep: beyond this, use a spill file (memory must stay bounded per stream). */
export const MAX_COLLECT_BYTES = 1024 * 1024 * 1024;

/** Largest spill file a collector may write: keeps one runaway stream from filling the disk. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024 * 1024;

/** Longest grace a spec may ask for: a day; anything longer is a bug, not a policy. */
export const MAX_GRACE_MS = 24 * 60 * 60 * 1000;

/** A kept slice smaller than this share of its backing chunk is copied, so a dropped chunk's memory is released. */
export const TAIL_COPY_RATIO = 0.5;
