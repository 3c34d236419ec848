/** Longest tool text a model sees, in characters: large enough for real output, small enough for a context window. */
export const MODEL_OUTPUT_MAX_CHARS = 30_000;
/** Room kept under the cap for the markers and notes, so the body is cut once and the trailer never is. */
export const TRAILER_RESERVE_CHARS = 2_000;
