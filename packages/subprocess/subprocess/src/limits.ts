/**
 * Named limits of the subprocess contract, each with its reason.
 */

/**
 * Largest in-memory tail a collector may keep: memory stays bounded per stream, and the tail must
 * decode into one JavaScript string (V8 caps strings near 512 Mi UTF-16 units). Use spill beyond it.
 */
export const MAX_COLLECT_BYTES = 256 * 1024 * 1024;

/** Largest spill file a collector may write: keeps one runaway stream from filling the disk. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024 * 1024;

/** Longest grace a spec may ask for: a day; anything longer is a bug, not a policy. */
export const MAX_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * A kept slice is copied out of its backing chunk when that frees more than this many bytes:
 * big pushes release their memory, while ordinary pipe chunks (≤ 64 KiB) are never copied,
 * since copying them only churns the allocator.
 */
export const TAIL_COPY_MIN_WASTE = 256 * 1024;
